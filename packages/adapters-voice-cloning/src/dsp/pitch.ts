/**
 * Fundamental frequency by YIN (de Cheveigné & Kawahara 2002): difference function, cumulative
 * mean normalisation, absolute threshold, parabolic refinement. Robust on speech and cheap enough
 * to run over a whole reference clip.
 */
export interface PitchTrackOptions {
  sampleRate: number;
  minHz?: number;
  maxHz?: number;
  /** Analysis window, seconds. */
  windowSeconds?: number;
  hopSeconds?: number;
  /** YIN threshold on the normalised difference (lower = stricter voicing). */
  threshold?: number;
}

export interface PitchFrame {
  /** Centre of the frame, seconds. */
  time: number;
  /** Hz, or 0 when unvoiced. */
  f0: number;
  /** Normalised difference at the chosen lag (0 = perfectly periodic). */
  aperiodicity: number;
}

export function trackPitch(x: Float32Array, options: PitchTrackOptions): PitchFrame[] {
  const sr = options.sampleRate;
  const minLag = Math.max(2, Math.floor(sr / (options.maxHz ?? 500)));
  const maxLag = Math.ceil(sr / (options.minHz ?? 60));
  const window = Math.round(sr * (options.windowSeconds ?? 0.025));
  const hop = Math.round(sr * (options.hopSeconds ?? 0.01));
  const threshold = options.threshold ?? 0.15;
  const frames: PitchFrame[] = [];
  const diff = new Float64Array(maxLag + 2);
  for (let start = 0; start + window + maxLag + 1 <= x.length; start += hop) {
    difference(x, start, window, maxLag + 1, diff);
    const lag = pickLag(diff, minLag, maxLag, threshold);
    const time = (start + window / 2) / sr;
    if (lag === null) {
      frames.push({ time, f0: 0, aperiodicity: 1 });
      continue;
    }
    frames.push({ time, f0: sr / refine(diff, lag), aperiodicity: diff[lag]! });
  }
  return frames;
}

/** d'(tau): squared difference, cumulative-mean normalised (diff[0] = 1). */
function difference(x: Float32Array, start: number, window: number, maxLag: number, out: Float64Array): void {
  out[0] = 1;
  let running = 0;
  for (let tau = 1; tau <= maxLag; tau++) {
    let sum = 0;
    for (let i = start; i < start + window; i++) {
      const d = x[i]! - x[i + tau]!;
      sum += d * d;
    }
    running += sum;
    out[tau] = running > 0 ? (sum * tau) / running : 1;
  }
}

function pickLag(d: Float64Array, minLag: number, maxLag: number, threshold: number): number | null {
  for (let tau = minLag; tau < maxLag; tau++) {
    if (d[tau]! < threshold) {
      while (tau + 1 < maxLag && d[tau + 1]! < d[tau]!) tau++;
      return tau;
    }
  }
  return null;
}

function refine(d: Float64Array, tau: number): number {
  const a = d[tau - 1]!;
  const b = d[tau]!;
  const c = d[tau + 1] ?? b;
  const denom = a - 2 * b + c;
  return denom > 0 ? tau + (0.5 * (a - c)) / denom : tau;
}
