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
export const FALLING_RATIO = 0.83;
export const RISING_RATIO = 1.1;
/** How much speech before a pause the pitch of its ending is judged against (the speaker's own level). */
export const PITCH_CONTEXT_MS = 1200;
/** The end of the speech judged: its last voiced frames over this span. */
const ENDING_MS = 200;
const FRAME_MS = 40;
/** Frames every 10 ms: creak at a sentence's end lasts a few tens of ms, too few frames at a coarser hop. */
const HOP_MS = 10;
const MIN_F0_HZ = 60;
const MAX_F0_HZ = 400;
/** Normalized autocorrelation a frame needs to count as voiced. */
const VOICING = 0.6;
/**
 * The single period's share of the double's correlation at which the single is taken (see
 * pitchTrack). Close to 1: a browser's Opus (VOIP mode: a high-pass and SILK's pitch predictor)
 * leaves creak's doubled period only slightly ahead of the single, and a lower share read a
 * reader's creak as steady voice over WebRTC; a voice with a human's jitter still reads its single
 * period up to 0.998 (docs/realtime.md, semantic_vad).
 */
const OCTAVE_PREFERENCE = 0.995;
/** Frames needed for a median and for an ending worth judging. */
const MIN_VOICED_FRAMES = 16;
const MIN_ENDING_FRAMES = 5;
/**
 * Creak: a voice that drops below its own range as it stops (period doubling, vocal fry) reads as
 * a pitch at or below this share of the speaker's median. Within CREAK_MS of the last voiced
 * frame, CREAK_FRAMES such frames are a fall, whatever the last steady frames did: a reader's
 * sentence often ends with an accent that rises and then falls into creak, which the steady frames
 * (near the median) leave out.
 */
export const CREAK_RATIO = 0.72;
const CREAK_MS = 150;
const CREAK_FRAMES = 3;

/** What the end of a stretch of speech says, with the numbers it was judged on. */
export interface PitchCues {
  ending: PitchEnding;
  /** The speaker's median pitch over the stretch (Hz); 0 with too little voice. */
  medianHz: number;
  /** The ending's median pitch over the speaker's median; NaN with too short an ending. */
  endingRatio: number;
  /** Frames of creak (below CREAK_RATIO of the median) at the very end. */
  creakFrames: number;
  voicedFrames: number;
}

/** `samples` at `sampleRate`: the speech up to its end (some silence after it does no harm). */
export function pitchEnding(samples: Int16Array, sampleRate: number): PitchEnding {
  return pitchCues(samples, sampleRate).ending;
}

/** pitchEnding with the numbers behind it (for the analysis of recordings). */
export function pitchCues(samples: Int16Array, sampleRate: number): PitchCues {
  const half = decimateByTwo(samples);
  const rate = sampleRate / 2;
  const voiced = pitchTrack(half, rate).filter((f) => f.hz > 0);
  const none = { medianHz: 0, endingRatio: NaN, creakFrames: 0, voicedFrames: voiced.length };
  if (voiced.length < MIN_VOICED_FRAMES) return { ending: 'unknown', ...none };
  const median = medianOf(voiced.map((f) => f.hz));
  const lastVoicedAt = voiced[voiced.length - 1]!.atMs;
  const creakFrames = voiced.filter((f) => f.atMs > lastVoicedAt - CREAK_MS && f.hz <= median * CREAK_RATIO).length;
  const steady = voiced.filter((f) => f.hz > median * 0.7 && f.hz < median * 1.45);
  const lastAt = steady[steady.length - 1]?.atMs ?? 0;
  const ending = steady.filter((f) => f.atMs > lastAt - ENDING_MS);
  const endingRatio = ending.length >= MIN_ENDING_FRAMES ? medianOf(ending.map((f) => f.hz)) / median : NaN;
  const cues = { medianHz: median, endingRatio, creakFrames, voicedFrames: voiced.length };
  if (creakFrames >= CREAK_FRAMES || endingRatio <= FALLING_RATIO) return { ending: 'falling', ...cues };
  if (Number.isNaN(endingRatio)) return { ending: 'unknown', ...cues };
  return { ending: endingRatio >= RISING_RATIO ? 'rising' : 'level', ...cues };
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
    const r = correlations(x, s, win, minLag, Math.min(maxLag, win - 1));
    let bestLag = minLag;
    for (let lag = minLag; lag < minLag + r.length; lag++) if (r[lag - minLag]! > r[bestLag - minLag]!) bestLag = lag;
    let best = r[bestLag - minLag]!;
    // Two periods correlate about as well as one: a steady voice's best lag may land on the double
    // (half the pitch, which would pass for creak). The single period wins when it nearly matches;
    // creak's alternating pulses make it fall short.
    let halfLag = 0;
    for (let lag = Math.round(bestLag / 2) - 1; lag <= Math.round(bestLag / 2) + 1; lag++)
      if (lag >= minLag && (halfLag === 0 || r[lag - minLag]! > r[halfLag - minLag]!)) halfLag = lag;
    if (halfLag > 0 && r[halfLag - minLag]! >= best * OCTAVE_PREFERENCE) {
      bestLag = halfLag;
      best = r[halfLag - minLag]!;
    }
    // A best lag at the shortest searched is a fricative's noise, not a voice's period.
    frames.push({ atMs, hz: best >= VOICING && bestLag > minLag ? rate / bestLag : 0 });
  }
  return frames;
}

/** The normalized autocorrelation of the frame at `start` for every lag from `minLag` to `maxLag`. */
function correlations(x: Float32Array, start: number, win: number, minLag: number, maxLag: number): Float32Array {
  const out = new Float32Array(Math.max(0, maxLag - minLag + 1));
  for (let lag = minLag; lag <= maxLag; lag++) {
    let c = 0;
    let a = 0;
    let b = 0;
    for (let i = 0; i < win - lag; i++) {
      const p = x[start + i]!;
      const q = x[start + i + lag]!;
      c += p * q;
      a += p * p;
      b += q * q;
    }
    out[lag - minLag] = c / Math.sqrt(a * b + 1);
  }
  return out;
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
