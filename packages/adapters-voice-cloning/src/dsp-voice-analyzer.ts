import type { PcmAudio, SpeakerFeatures, VoiceAnalyzer } from '@svc/core';
import { VOICE_LIMITS } from '@svc/core';
import { int16ToFloat } from './dsp/signal.js';
import { measureSpeaker } from './speaker-features.js';

/** Long-term averages settle within a minute of speech; more only costs time. */
const MAX_ANALYSED_SECONDS = 60;

/**
 * Speaker analysis by classic signal processing (see speaker-features.ts), on the calling thread:
 * cheap enough for it (docs/benchmarks.md, Voices and cloning), at most the first 60 s of a clip.
 */
export class DspVoiceAnalyzer implements VoiceAnalyzer {
  readonly name = 'dsp-1';

  async analyze(audio: PcmAudio, transcript: string | null, signal?: AbortSignal): Promise<SpeakerFeatures> {
    signal?.throwIfAborted();
    const limit = Math.min(audio.samples.length, MAX_ANALYSED_SECONDS * audio.sampleRate);
    return measureSpeaker(int16ToFloat(audio.samples.subarray(0, limit)), audio.sampleRate, transcript, {
      minVoicedSeconds: VOICE_LIMITS.minVoicedSeconds,
      // A transcript describes the whole clip; when the clip is cut, assume it is spoken evenly.
      transcriptFraction: limit / Math.max(1, audio.samples.length),
    });
  }
}
