import type { ResponseFormat } from '../shared/audio.js';

export interface DecodedAudio {
  samples: Int16Array;
  sampleRate: number;
  /** Container/codec recognized from the content itself (wav, mp3, flac, ogg, aac ...). */
  format: string;
}

export interface DecodeOptions {
  maxSeconds?: number;
}

/**
 * Encoding to the response formats and decoding uploaded audio. The default adapter drives the
 * ffmpeg binary as a streaming pipe; `pcm` needs no encoder at all.
 */
export interface AudioCodec {
  /**
   * Encodes mono s16 PCM chunks at `sampleRate` into `format`, yielding encoded bytes as soon as
   * the encoder produces them. Aborting the signal stops the encoder (no process is left behind).
   */
  encode(format: ResponseFormat, sampleRate: number, pcm: AsyncIterable<Int16Array>, signal?: AbortSignal): AsyncIterable<Uint8Array>;

  /**
   * Decodes an audio file (format detected from its bytes, never from a claimed type) to mono s16
   * PCM at `sampleRate`. Throws InvalidAudioError for content that is not decodable audio.
   * `maxSeconds` stops decoding there: a few MB of compressed silence can hold hours of audio, so
   * callers with a duration limit pass it (plus a margin to tell "too long" apart) to bound memory.
   */
  decode(bytes: Uint8Array, sampleRate: number, signal?: AbortSignal, options?: DecodeOptions): Promise<DecodedAudio>;
}
