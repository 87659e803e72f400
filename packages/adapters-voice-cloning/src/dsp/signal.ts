/** Small signal helpers shared by the analysis steps. Audio is Float32 in [-1, 1]. */

export { floatToInt16, int16ToFloat } from '@svc/adapters-runtime';
/** Band-limited resampling of a whole analysis buffer: the service's one resampler. */
export { resampleBuffer as resample } from '@svc/adapters-runtime';

export function hamming(length: number): Float64Array {
  const w = new Float64Array(length);
  for (let i = 0; i < length; i++) w[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (length - 1));
  return w;
}

/** Linear-interpolated percentile (p in 0..1) of unsorted values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = p * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export const median = (values: readonly number[]): number => percentile(values, 0.5);
