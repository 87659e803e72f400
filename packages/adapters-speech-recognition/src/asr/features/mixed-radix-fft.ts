/**
 * A complex FFT of any length (recursive mixed-radix decimation in time). Whisper's window is 400
 * samples (2^4 * 5^2), not a power of two, so the usual radix-2 FFT does not apply; this one costs
 * n * (sum of the prime factors) per transform, a small fraction of the direct DFT's n^2 at n = 400.
 */
export class MixedRadixFft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  /** Scratch for one butterfly (as long as the largest prime factor): no allocation per transform. */
  private readonly yRe: Float64Array;
  private readonly yIm: Float64Array;

  constructor(readonly size: number) {
    this.cos = new Float64Array(size);
    this.sin = new Float64Array(size);
    for (let k = 0; k < size; k++) {
      this.cos[k] = Math.cos((2 * Math.PI * k) / size);
      this.sin[k] = -Math.sin((2 * Math.PI * k) / size);
    }
    let largest = 1;
    for (let n = size; n > 1; n /= smallestFactor(n)) largest = Math.max(largest, smallestFactor(n));
    this.yRe = new Float64Array(largest);
    this.yIm = new Float64Array(largest);
  }

  /** The transform of `re`/`im` (length `size`), written to `outRe`/`outIm`. */
  transform(re: Float64Array, im: Float64Array, outRe: Float64Array, outIm: Float64Array): void {
    this.step(re, im, 0, 1, this.size, outRe, outIm, 0);
  }

  private step(
    re: Float64Array,
    im: Float64Array,
    offset: number,
    stride: number,
    n: number,
    outRe: Float64Array,
    outIm: Float64Array,
    outOffset: number,
  ): void {
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
    const { yRe, yIm } = this;
    for (let k = 0; k < m; k++) {
      for (let r = 0; r < p; r++) {
        yRe[r] = outRe[outOffset + r * m + k]!;
        yIm[r] = outIm[outOffset + r * m + k]!;
      }
      for (let q = 0; q < p; q++) {
        const j = k + m * q;
        let sumRe = yRe[0]!;
        let sumIm = yIm[0]!;
        // W_n^{r j} for r = 1.. p-1, stepping the table index by j (mod n) instead of multiplying.
        const step = (j % n) * twiddleStride;
        let t = 0;
        for (let r = 1; r < p; r++) {
          t += step;
          if (t >= this.size) t -= this.size;
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
