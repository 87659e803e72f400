import type { PcmAudio } from '@svc/core';

/** What the mouth needs to know about the speech during one video frame. */
export interface FrameFeatures {
  /** RMS amplitude of the frame's samples, 0..1 of full scale. */
  rms: number;
  /** Share of the spectral energy above 3.5 kHz (fricatives: s, sh, f, t). */
  hiss: number;
  /** Spectral centroid of 200-4000 Hz in Hz (low for o/u, high for e/i). */
  centroid: number;
}

/**
 * Per-frame features of the audio: frame k covers [k/fps, (k+1)/fps) seconds, the interval it is on
 * screen, so the mouth moves with the sound at zero lag. The spectrum comes from a Hann-windowed FFT
 * centred on the frame (>= 1024 points).
 */
export function speechFeatures(audio: PcmAudio, fps: number, frameCount: number): FrameFeatures[] {
  const sr = audio.sampleRate;
  const x = audio.samples;
  const hop = sr / fps;
  let n = 1;
  while (n < Math.max(1024, hop)) n <<= 1;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  const window = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  const binHz = sr / n;
  const out: FrameFeatures[] = [];
  for (let k = 0; k < frameCount; k++) {
    const start = Math.round(k * hop);
    const end = Math.min(x.length, Math.round((k + 1) * hop));
    let sum = 0;
    for (let i = start; i < end; i++) sum += x[i]! * x[i]!;
    const rms = end > start ? Math.sqrt(sum / (end - start)) / 32768 : 0;

    const centre = Math.round((k + 0.5) * hop);
    for (let i = 0; i < n; i++) {
      const j = centre - n / 2 + i;
      re[i] = j >= 0 && j < x.length ? (x[j]! / 32768) * window[i]! : 0;
      im[i] = 0;
    }
    fft(re, im);
    let total = 0;
    let high = 0;
    let band = 0;
    let weighted = 0;
    for (let b = 1; b < n / 2; b++) {
      const e = re[b]! * re[b]! + im[b]! * im[b]!;
      const hz = b * binHz;
      total += e;
      if (hz >= 3500) high += e;
      if (hz >= 200 && hz <= 4000) {
        band += e;
        weighted += e * hz;
      }
    }
    out.push({ rms, hiss: total > 0 ? high / total : 0, centroid: band > 0 ? weighted / band : 0 });
  }
  return out;
}

/** In-place iterative radix-2 FFT (n a power of two). */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let j = 0; j < len / 2; j++) {
        const a = i + j;
        const b = a + len / 2;
        const tr = re[b]! * cr - im[b]! * ci;
        const ti = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
        const ncr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = ncr;
      }
    }
  }
}

/** The q-quantile (0..1) of the values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))))]!;
}
