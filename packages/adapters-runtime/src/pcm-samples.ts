import { resampleBuffer } from './streaming-resampler.js';

/** The conversions between 16-bit PCM and float samples in [-1, 1) that every audio path shares. */

export function int16ToFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768;
  return out;
}

/** Float samples to 16-bit PCM, clamped (a float of exactly 1.0 would otherwise wrap). */
export function floatToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i]! * 32768);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}

/**
 * A whole 16-bit buffer at another rate, exactly round(n * outputRate / inputRate) samples (the
 * service's one resampler, `resampleBuffer`); a buffer already at `outputRate` comes back as is.
 */
export function resampleInt16(samples: Int16Array, inputRate: number, outputRate: number): Int16Array {
  return inputRate === outputRate ? samples : floatToInt16(resampleBuffer(samples, inputRate, outputRate));
}
