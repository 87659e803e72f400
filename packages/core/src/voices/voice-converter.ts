import type { StreamingVoiceConversion } from '../speech/cloned-voice.js';
import type { BaseVoiceCandidate, SpeakerFeatures, VoiceProfile } from './voice-profile.js';

/**
 * Turns speech of a base preset into (an approximation of) the reference speaker, chunk by chunk.
 * Conversions preserve duration: the speaking rate is applied by synthesis prosody instead, so
 * word timings and streaming stay exact.
 */
export interface VoiceConverter {
  /** The preset that converts best toward this speaker (closest pitch and vocal-tract size). */
  chooseBase(target: SpeakerFeatures, candidates: readonly BaseVoiceCandidate[]): BaseVoiceCandidate;
  /** A fresh conversion for one response at `sampleRate`; it keeps per-stream state. */
  start(profile: VoiceProfile, sampleRate: number): StreamingVoiceConversion;
  /** Loads its engine ahead of the first conversion (a WASM module), for a converter that has one. */
  warmUp?(): Promise<unknown>;
}
