import { Fft } from './fft.js';
import { hamming } from './signal.js';

/** Mel scale (O'Shaughnessy). */
export const hzToMel = (hz: number): number => 2595 * Math.log10(1 + hz / 700);
export const melToHz = (mel: number): number => 700 * (10 ** (mel / 2595) - 1);

export interface MelAnalysisOptions {
  sampleRate: number;
  bands?: number;
  lowHz?: number;
  highHz?: number;
  frameSeconds?: number;
  hopSeconds?: number;
  fftSize?: number;
}

export interface MelFrames {
  /** Log energies in dB, one Float64Array of `bands` values per frame. */
  logMel: Float64Array[];
  /** Centre frequency of each band, Hz. */
  centersHz: number[];
  hopSeconds: number;
}

/**
 * Log mel-band energies per frame (pre-emphasised, Hamming-windowed): the common ground of the
 * MFCC timbre statistics and the long-term spectral envelope.
 */
export function logMelFrames(x: Float32Array, options: MelAnalysisOptions): MelFrames {
  const sr = options.sampleRate;
  const bands = options.bands ?? 26;
  const lowHz = options.lowHz ?? 80;
  const highHz = Math.min(options.highHz ?? 7600, sr / 2);
  const frame = Math.round(sr * (options.frameSeconds ?? 0.025));
  const hop = Math.round(sr * (options.hopSeconds ?? 0.01));
  const fft = new Fft(options.fftSize ?? 512);
  const window = hamming(frame);
  const filters = melFilterbank(bands, fft.size, sr, lowHz, highHz);
  const buffer = new Float64Array(frame);
  const power = new Float64Array(fft.size / 2 + 1);
  const logMel: Float64Array[] = [];
  for (let start = 1; start + frame <= x.length; start += hop) {
    for (let i = 0; i < frame; i++) buffer[i] = (x[start + i]! - 0.97 * x[start + i - 1]!) * window[i]!;
    fft.powerSpectrum(buffer, power);
    const energies = new Float64Array(bands);
    for (let b = 0; b < bands; b++) {
      const f = filters.weights[b]!;
      let sum = 0;
      for (let k = 0; k < f.length; k++) sum += f[k]! * power[filters.firstBin[b]! + k]!;
      energies[b] = 10 * Math.log10(sum + 1e-10);
    }
    logMel.push(energies);
  }
  return { logMel, centersHz: filters.centersHz, hopSeconds: hop / sr };
}

interface Filterbank {
  firstBin: number[];
  weights: Float64Array[];
  centersHz: number[];
}

/** Triangular filters evenly spaced on the mel scale. */
export function melFilterbank(bands: number, fftSize: number, sampleRate: number, lowHz: number, highHz: number): Filterbank {
  const lowMel = hzToMel(lowHz);
  const highMel = hzToMel(highHz);
  const edgesHz = Array.from({ length: bands + 2 }, (_, i) => melToHz(lowMel + ((highMel - lowMel) * i) / (bands + 1)));
  const binHz = sampleRate / fftSize;
  const firstBin: number[] = [];
  const weights: Float64Array[] = [];
  for (let b = 0; b < bands; b++) {
    const [lo, mid, hi] = [edgesHz[b]!, edgesHz[b + 1]!, edgesHz[b + 2]!];
    const from = Math.max(0, Math.ceil(lo / binHz));
    const to = Math.min(fftSize / 2, Math.floor(hi / binHz));
    const w = new Float64Array(Math.max(1, to - from + 1));
    for (let k = from; k <= to; k++) {
      const hz = k * binHz;
      w[k - from] = hz <= mid ? (hz - lo) / (mid - lo) : (hi - hz) / (hi - mid);
    }
    firstBin.push(from);
    weights.push(w);
  }
  return { firstBin, weights, centersHz: edgesHz.slice(1, -1) };
}

/** DCT-II of log-mel energies: cepstral coefficients 1..count (c0, the level, is left out). */
export function mfccFromLogMel(logMel: Float64Array, count: number): Float64Array {
  const n = logMel.length;
  const out = new Float64Array(count);
  for (let c = 1; c <= count; c++) {
    let sum = 0;
    for (let b = 0; b < n; b++) sum += logMel[b]! * Math.cos((Math.PI * c * (b + 0.5)) / n);
    out[c - 1] = sum * Math.sqrt(2 / n);
  }
  return out;
}
