import { resampleInt16 } from '@svc/adapters-runtime/worker';
import { applyGain } from './pcm-gain.js';

/** What an engine worker does to its native output before handing it back. */
export interface OutputSpec {
  /** The rate the caller asked for. */
  sampleRate: number;
  /** Prosody volume: a linear gain with clipping. */
  volume: number;
  /** Read the native samples as if recorded this many times faster (pitch shift by resampling); 1 = as is. */
  playbackRate?: number;
}

/**
 * Resamples native engine output to the requested rate and applies the volume gain. The engine
 * workers call this inside their worker threads: a long speech takes long enough to resample that it
 * would otherwise stall the server's event loop.
 */
export function toOutputAudio(samples: Int16Array, nativeRate: number, spec: OutputSpec): Int16Array {
  // The resampler takes integer rates: a pitch-shifted native rate is rounded to the nearest hertz.
  const playedRate = Math.round(nativeRate * (spec.playbackRate ?? 1));
  return applyGain(resampleInt16(samples, playedRate, spec.sampleRate), spec.volume);
}
