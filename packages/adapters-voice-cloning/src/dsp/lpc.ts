import { Fft } from './fft.js';

/**
 * Linear prediction: autocorrelation method + Levinson-Durbin, and formant estimates from the
 * peaks of the all-pole envelope. Peak picking on a fine frequency grid avoids polynomial root
 * finding and behaves well enough for median formants over many frames.
 */
export function lpcCoefficients(frame: Float64Array, order: number): Float64Array | null {
  const r = new Float64Array(order + 1);
  for (let lag = 0; lag <= order; lag++) {
    let sum = 0;
    for (let i = lag; i < frame.length; i++) sum += frame[i]! * frame[i - lag]!;
    r[lag] = sum;
  }
  if (r[0]! <= 1e-10) return null;
  r[0] = r[0]! * (1 + 1e-9); // white-noise correction keeps the recursion stable
  const a = new Float64Array(order + 1);
  a[0] = 1;
  let error = r[0]!;
  const tmp = new Float64Array(order + 1);
  for (let i = 1; i <= order; i++) {
    let acc = r[i]!;
    for (let j = 1; j < i; j++) acc += a[j]! * r[i - j]!;
    const k = -acc / error;
    tmp.set(a);
    for (let j = 1; j < i; j++) a[j] = tmp[j]! + k * tmp[i - j]!;
    a[i] = k;
    error *= 1 - k * k;
    if (error <= 0) return null;
  }
  return a;
}

/**
 * Frequencies (Hz) of the peaks of 1/|A(e^jw)| between minHz and maxHz, lowest first.
 */
export function envelopePeaks(a: Float64Array, sampleRate: number, minHz: number, maxHz: number, gridSize = 512): number[] {
  const fft = fftOf(gridSize * 2);
  // |A(e^jw)|^2 on gridSize+1 points from 0 to Nyquist; the envelope is its inverse.
  const power = fft.powerSpectrum(a);
  const db = new Float64Array(gridSize + 1);
  for (let k = 0; k <= gridSize; k++) db[k] = -10 * Math.log10(power[k]! + 1e-20);
  const peaks: number[] = [];
  const hzPerBin = sampleRate / 2 / gridSize;
  for (let k = 1; k < gridSize; k++) {
    const hz = k * hzPerBin;
    if (hz < minHz || hz > maxHz) continue;
    if (db[k]! > db[k - 1]! && db[k]! >= db[k + 1]!) {
      // Parabolic interpolation of the peak position.
      const denom = db[k - 1]! - 2 * db[k]! + db[k + 1]!;
      const offset = denom < 0 ? (0.5 * (db[k - 1]! - db[k + 1]!)) / denom : 0;
      peaks.push((k + offset) * hzPerBin);
    }
  }
  return peaks;
}

const ffts = new Map<number, Fft>();
function fftOf(size: number): Fft {
  let fft = ffts.get(size);
  if (!fft) ffts.set(size, (fft = new Fft(size)));
  return fft;
}
