import type { Resampler, ResamplerStream } from '@svc/core';
import { StreamingResampler } from './streaming-resampler.js';

/**
 * The realtime input's one resampler (the `Resampler` port): the session's rate to the 16 kHz the
 * detector and the recognizer share, with the same streaming windowed-sinc filter they use
 * themselves, as int16 samples.
 */
export class PcmResampler implements Resampler {
  open(inputRate: number, outputRate: number): ResamplerStream {
    const resampler = new StreamingResampler(inputRate, outputRate);
    return { process: (samples) => floatToInt16(resampler.process(samples)) };
  }
}

/** [-1, 1) floats to int16 samples, clamped. */
export function floatToInt16(floats: Float32Array): Int16Array {
  const out = new Int16Array(floats.length);
  for (let i = 0; i < floats.length; i++) {
    const v = Math.round(floats[i]! * 32768);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}
