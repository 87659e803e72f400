/**
 * How the voice moved at the end of a stretch of speech: a statement usually ends with the pitch
 * falling below the speaker's own level, a phrase that goes on stays level or rises. The pitch is
 * found by autocorrelation on short frames (speech halved in rate: a voice's fundamental is far
 * below 4 kHz), relative to the median of the same stretch, so it needs no knowledge of the
 * speaker. Octave slips (creaky voice at the end of a phrase reads as half or double the pitch) are
 * left out by keeping only frames near the median.
 */
export type PitchEnding = 'falling' | 'level' | 'rising' | 'unknown';

/**
 * The end at or below this share of the speaker's median pitch is a fall; at or above RISING_RATIO
 * a rise. A margin below level: a reader's clause that reads as finished ("rather cold hearted", "a
 * more amiable woman") dips a little before the sentence goes on, where a sentence's end falls
 * further; a dip is judged level, so such a pause waits (docs/realtime.md, semantic_vad).
 */
export const FALLING_RATIO = 0.85;
export const RISING_RATIO = 1.1;
/** The end of the speech judged: its last voiced frames over this span. */
const ENDING_MS = 200;
const FRAME_MS = 40;
const HOP_MS = 20;
const MIN_F0_HZ = 60;
const MAX_F0_HZ = 400;
/** Normalized autocorrelation a frame needs to count as voiced. */
const VOICING = 0.6;
/** Frames needed for a median and for an ending worth judging. */
const MIN_VOICED_FRAMES = 8;
const MIN_ENDING_FRAMES = 3;

/** `samples` at `sampleRate`: the speech up to its end (some silence after it does no harm). */
export function pitchEnding(samples: Int16Array, sampleRate: number): PitchEnding {
  const half = decimateByTwo(samples);
  const rate = sampleRate / 2;
  const frames = pitchTrack(half, rate);
  const voiced = frames.filter((f) => f.hz > 0);
  if (voiced.length < MIN_VOICED_FRAMES) return 'unknown';
  const median = medianOf(voiced.map((f) => f.hz));
  const steady = voiced.filter((f) => f.hz > median * 0.7 && f.hz < median * 1.45);
  const lastAt = steady[steady.length - 1]?.atMs ?? 0;
  const ending = steady.filter((f) => f.atMs > lastAt - ENDING_MS);
  if (ending.length < MIN_ENDING_FRAMES) return 'unknown';
  const ratio = medianOf(ending.map((f) => f.hz)) / median;
  if (ratio <= FALLING_RATIO) return 'falling';
  if (ratio >= RISING_RATIO) return 'rising';
  return 'level';
}

interface PitchFrame {
  atMs: number;
  /** 0: unvoiced or too quiet. */
  hz: number;
}

function pitchTrack(x: Float32Array, rate: number): PitchFrame[] {
  const win = Math.round((FRAME_MS * rate) / 1000);
  const hop = Math.round((HOP_MS * rate) / 1000);
  const minLag = Math.floor(rate / MAX_F0_HZ);
  const maxLag = Math.ceil(rate / MIN_F0_HZ);
  let loudest = 0;
  const energies: number[] = [];
  for (let s = 0; s + win <= x.length; s += hop) {
    let e = 0;
    for (let i = 0; i < win; i++) e += x[s + i]! * x[s + i]!;
    energies.push(e);
    loudest = Math.max(loudest, e);
  }
  const frames: PitchFrame[] = [];
  for (let k = 0, s = 0; s + win <= x.length; k++, s += hop) {
    const atMs = ((s + win / 2) / rate) * 1000;
    // Quieter than a hundredth of the loudest frame's energy: a pause or a breath, no pitch.
    if (energies[k]! < loudest / 100) {
      frames.push({ atMs, hz: 0 });
      continue;
    }
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag && lag < win; lag++) {
      let c = 0;
      let a = 0;
      let b = 0;
      for (let i = 0; i < win - lag; i++) {
        const p = x[s + i]!;
        const q = x[s + i + lag]!;
        c += p * q;
        a += p * p;
        b += q * q;
      }
      const r = c / Math.sqrt(a * b + 1);
      if (r > best) {
        best = r;
        bestLag = lag;
      }
    }
    frames.push({ atMs, hz: best >= VOICING ? rate / bestLag : 0 });
  }
  return frames;
}

/** Half the rate (pairs averaged), without the DC offset some microphones add (it would correlate at every lag). */
function decimateByTwo(x: Int16Array): Float32Array {
  const out = new Float32Array(x.length >> 1);
  let mean = 0;
  for (let i = 0; i < out.length; i++) {
    out[i] = (x[2 * i]! + x[2 * i + 1]!) / 2;
    mean += out[i]!;
  }
  mean /= Math.max(1, out.length);
  for (let i = 0; i < out.length; i++) out[i]! -= mean;
  return out;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}
