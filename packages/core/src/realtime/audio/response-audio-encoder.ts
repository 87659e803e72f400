import { pcmBytesView } from '../../shared/audio.js';
import type { OpusCodec } from '../ports/audio-pipeline.js';
import { formatSampleRate, type AudioFormat } from '../session/session-config.js';
import { muLawEncode } from './g711.js';

/** Turns spoken PCM into the wire bytes of `audio.output.format`. */
export interface ResponseAudioEncoder {
  readonly sampleRate: number;
  encode(pcm: Int16Array): Uint8Array[];
  flush(): Uint8Array[];
}

/** Null when the format needs a codec that is not wired (opus without an OpusCodec). */
export function createResponseAudioEncoder(format: AudioFormat, opus?: OpusCodec): ResponseAudioEncoder | null {
  const sampleRate = formatSampleRate(format);
  switch (format.type) {
    case 'audio/pcm':
      // The samples' own memory (no copy): the transport reads it when it sends the delta.
      return { sampleRate, encode: (pcm) => [pcmBytesView(pcm)], flush: () => [] };
    case 'audio/pcmu':
      return { sampleRate, encode: (pcm) => [muLawEncode(pcm)], flush: () => [] };
    case 'audio/opus': {
      if (!opus) return null;
      const encoder = opus.createEncoder(format.frame_size_ms);
      return { sampleRate, encode: (pcm) => encoder.encode(pcm), flush: () => encoder.flush() };
    }
  }
}

/** Milliseconds of audio in `samples` at `rate`. */
export function pcmDurationMs(samples: number, rate: number): number {
  return (samples / rate) * 1000;
}
