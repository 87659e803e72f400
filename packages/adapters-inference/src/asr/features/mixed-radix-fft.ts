/**
 * A complex FFT of any length (recursive mixed-radix decimation in time). Whisper's window is 400
 * samples (2^4 * 5^2), not a power of two, so the usual radix-2 FFT does not apply; this one costs
 * n * (sum of the prime factors) per transform, ~18x less than the direct DFT at n = 400.
 */
export class MixedRadixFft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;

  constructor(readonly size: number) {
    this.cos = new Float64Array(size);
    this.sin = new Float64Array(size);
    for (let k = 0; k < size; k++) {
      this.cos[k] = Math.cos((2 * Math.PI * k) / size);
      this.sin[k] = -Math.sin((2 * Math.PI * k) / size);
    }
  }

  /** The transform of `re`/`im` (length `size`), written to `outRe`/`outIm`. */
  transform(re: Float64Array, im: Float64Array, outRe: Float64Array, outIm: Float64Array): void {
    this.step(re, im, 0, 1, this.size, outRe, outIm, 0);
  }

  private step(re: Float64Array, im: Float64Array, offset: number, stride: number, n: number, outRe: Float64Array, outIm: Float64Array, outOffset: number): void {
    if (n === 1) {
      outRe[outOffset] = re[offset]!;
      outIm[outOffset] = im[offset]!;
      return;
    }
    const p = smallestFactor(n);
    const m = n / p;
    // p interleaved sub-transforms of length m, side by side in the output.
    for (let r = 0; r < p; r++) this.step(re, im, offset + r * stride, stride * p, m, outRe, outIm, outOffset + r * m);
    // Combine: X[k + m q] = sum_r W_n^{r (k + m q)} Y_r[k]; twiddles are the size-`size` table at stride size/n.
    const twiddleStride = this.size / n;
    const yRe = new Float64Array(p);
    const yIm = new Float64Array(p);
    for (let k = 0; k < m; k++) {
      for (let r = 0; r < p; r++) {
        yRe[r] = outRe[outOffset + r * m + k]!;
        yIm[r] = outIm[outOffset + r * m + k]!;
      }
      for (let q = 0; q < p; q++) {
        const j = k + m * q;
        let sumRe = 0;
        let sumIm = 0;
        for (let r = 0; r < p; r++) {
          const t = ((r * j) % n) * twiddleStride;
          const c = this.cos[t]!;
          const s = this.sin[t]!;
          sumRe += yRe[r]! * c - yIm[r]! * s;
          sumIm += yRe[r]! * s + yIm[r]! * c;
        }
        outRe[outOffset + j] = sumRe;
        outIm[outOffset + j] = sumIm;
      }
    }
  }
}

function smallestFactor(n: number): number {
  for (let f = 2; f * f <= n; f++) if (n % f === 0) return f;
  return n;
}
