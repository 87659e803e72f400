import { applyGain } from './pcm-gain.js';
import type { SpeexResampler } from '@svc/adapters-runtime';

/** What an engine worker does to its native output before handing it back. */
export interface OutputSpec {
  /** The rate the caller asked for. */
  sampleRate: number;
  /** Prosody volume: a linear gain with clipping. */
  volume: number;
  /** Read the native samples as if recorded this many times faster (pitch shift by resampling); 1 = as is. */
  playbackRate?: number;
}

/** Resamples native engine output to the requested rate and applies the volume gain. */
export function toOutputAudio(samples: Int16Array, nativeRate: number, spec: OutputSpec, resampler: SpeexResampler): Int16Array {
  const resampled = resampler.resample(samples, nativeRate * (spec.playbackRate ?? 1), spec.sampleRate);
  return applyGain(resampled, spec.volume);
}
