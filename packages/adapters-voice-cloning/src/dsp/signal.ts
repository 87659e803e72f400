/** Small signal helpers shared by the analysis steps. Audio is Float32 in [-1, 1]. */

export { floatToInt16, int16ToFloat } from '@svc/adapters-runtime';

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

/**
 * Band-limited resampling by windowed-sinc interpolation (Blackman window, ~60 dB stopband),
 * for analysis. Sample rates in a rational ratio p/q reuse p precomputed kernels (the fractional
 * position of output n repeats every p outputs), which avoids trigonometry in the inner loop.
 */
export function resample(x: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate) return x;
  const divisor = gcd(Math.round(fromRate), Math.round(toRate));
  const up = Math.round(toRate) / divisor; // p: output samples per period
  const down = Math.round(fromRate) / divisor; // q: input samples per period
  const ratio = up / down;
  const cutoff = Math.min(1, ratio) * 0.95; // of the input Nyquist
  const halfTaps = Math.ceil(16 / Math.min(1, ratio));
  const width = 2 * halfTaps;
  const kernels = up <= 2048 ? new Float32Array(up * width) : null;
  const kernelAt = (frac: number, out: Float32Array, offset: number): void => {
    let norm = 0;
    for (let j = 0; j < width; j++) {
      const d = j - halfTaps + 1 - frac; // distance of input tap (floor(t) - halfTaps + 1 + j) from t
      const sinc = d === 0 ? 1 : Math.sin(Math.PI * cutoff * d) / (Math.PI * cutoff * d);
      const w =
        Math.abs(d) >= halfTaps ? 0 : 0.42 + 0.5 * Math.cos((Math.PI * d) / halfTaps) + 0.08 * Math.cos((2 * Math.PI * d) / halfTaps);
      out[offset + j] = sinc * w;
      norm += sinc * w;
    }
    for (let j = 0; j < width; j++) out[offset + j] = out[offset + j]! / norm;
  };
  if (kernels) for (let phase = 0; phase < up; phase++) kernelAt(((phase * down) % up) / up, kernels, phase * width);
  const scratch = new Float32Array(width);
  const outLength = Math.floor((x.length * up) / down);
  const out = new Float32Array(outLength);
  for (let n = 0; n < outLength; n++) {
    const base = Math.floor((n * down) / up);
    let kernel: Float32Array;
    let k0: number;
    if (kernels) {
      kernel = kernels;
      k0 = (n % up) * width;
    } else {
      kernelAt((n * down) / up - base, scratch, 0);
      kernel = scratch;
      k0 = 0;
    }
    let acc = 0;
    const first = base - halfTaps + 1;
    for (let j = 0; j < width; j++) {
      const i = first + j;
      if (i >= 0 && i < x.length) acc += x[i]! * kernel[k0 + j]!;
    }
    out[n] = acc;
  }
  return out;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
