import { Fft } from './dsp/fft.js';

/** A smooth gain curve: gains (dB) at ascending frequencies (Hz), interpolated on a log axis. */
export interface GainCurve {
  frequenciesHz: readonly number[];
  gainsDb: readonly number[];
}

/** Gain (dB) of a curve at `hz`: log-frequency interpolation, held flat beyond the ends. */
export function gainAt(curve: GainCurve, hz: number): number {
  const f = curve.frequenciesHz;
  const g = curve.gainsDb;
  if (f.length === 0) return 0;
  if (hz <= f[0]!) return g[0]!;
  if (hz >= f[f.length - 1]!) return g[g.length - 1]!;
  let i = 1;
  while (f[i]! < hz) i++;
  const t = (Math.log(hz) - Math.log(f[i - 1]!)) / (Math.log(f[i]!) - Math.log(f[i - 1]!));
  return g[i - 1]! + t * (g[i]! - g[i - 1]!);
}

/**
 * Linear-phase FIR from a gain curve by frequency sampling: zero-phase spectrum -> inverse FFT ->
 * Hann-windowed to `taps` (odd). Linear phase keeps the waveform shape; the delay is (taps-1)/2.
 */
export function designFir(curve: GainCurve, sampleRate: number, taps = 255): Float32Array {
  const fftSize = 1024;
  const fft = new Fft(fftSize);
  const re = new Float64Array(fftSize);
  const im = new Float64Array(fftSize);
  for (let k = 0; k <= fftSize / 2; k++) {
    const gain = 10 ** (gainAt(curve, Math.max(1, (k * sampleRate) / fftSize)) / 20);
    re[k] = gain;
    if (k > 0 && k < fftSize / 2) re[fftSize - k] = gain;
  }
  fft.transform(re, im, true);
  const half = (taps - 1) / 2;
  const h = new Float32Array(taps);
  for (let n = -half; n <= half; n++) {
    const w = 0.5 + 0.5 * Math.cos((Math.PI * n) / (half + 1));
    h[n + half] = re[(n + fftSize) % fftSize]! * w;
  }
  return h;
}

const FFT_SIZE = 1024;

/**
 * Streaming convolution with a linear-phase FIR that preserves duration: the filter delay is
 * removed at the start and made up by flush(), so the output lines up with the input sample for
 * sample and the total length is unchanged. Whole blocks are convolved by FFT (overlap-save, cheaper
 * than direct form at 255 taps); the remainder of a chunk directly, so nothing is held back.
 */
export class StreamingFir {
  /** The last taps-1 input samples. */
  private history: Float32Array;
  private delayToDrop: number;
  private readonly delay: number;
  private readonly fft = new Fft(FFT_SIZE);
  private readonly spectrumRe = new Float64Array(FFT_SIZE);
  private readonly spectrumIm = new Float64Array(FFT_SIZE);
  private readonly block: number;

  constructor(private readonly taps: Float32Array) {
    if (taps.length >= FFT_SIZE / 2) throw new Error(`FIR too long for the ${FFT_SIZE}-point FFT`);
    this.history = new Float32Array(taps.length - 1);
    this.delay = (taps.length - 1) / 2;
    this.delayToDrop = this.delay;
    this.block = FFT_SIZE - (taps.length - 1);
    this.spectrumRe.set(taps);
    this.fft.transform(this.spectrumRe, this.spectrumIm);
  }

  process(input: Float32Array): Float32Array {
    const m = this.taps.length - 1;
    const ext = new Float32Array(m + input.length);
    ext.set(this.history, 0);
    ext.set(input, m);
    const full = new Float32Array(input.length);
    let n = 0;
    for (; n + this.block <= input.length; n += this.block) this.convolveBlock(ext, n, full);
    this.convolveDirect(ext, n, input.length, full);
    this.history = ext.slice(ext.length - m);
    const skip = Math.min(this.delayToDrop, full.length);
    this.delayToDrop -= skip;
    return full.subarray(skip);
  }

  /** Outputs the last `delay` samples still inside the filter. */
  flush(): Float32Array {
    return this.process(new Float32Array(this.delay));
  }

  /** Outputs full[n .. n+block) from ext[n .. n+FFT_SIZE) by circular convolution (overlap-save). */
  private convolveBlock(ext: Float32Array, n: number, full: Float32Array): void {
    const re = new Float64Array(FFT_SIZE);
    const im = new Float64Array(FFT_SIZE);
    for (let i = 0; i < FFT_SIZE; i++) re[i] = ext[n + i]!;
    this.fft.transform(re, im);
    for (let k = 0; k < FFT_SIZE; k++) {
      const a = re[k]!;
      const b = im[k]!;
      re[k] = a * this.spectrumRe[k]! - b * this.spectrumIm[k]!;
      im[k] = a * this.spectrumIm[k]! + b * this.spectrumRe[k]!;
    }
    this.fft.transform(re, im, true);
    const m = this.taps.length - 1;
    for (let i = 0; i < this.block; i++) full[n + i] = re[m + i]!;
  }

  private convolveDirect(ext: Float32Array, from: number, to: number, full: Float32Array): void {
    const h = this.taps;
    const m = h.length - 1;
    for (let n = from; n < to; n++) {
      let acc = 0;
      // y[n] = sum h[k] x[n-k]; x[n-k] is ext[m + n - k].
      for (let k = 0; k <= m; k++) acc += h[k]! * ext[m + n - k]!;
      full[n] = acc;
    }
  }
}
