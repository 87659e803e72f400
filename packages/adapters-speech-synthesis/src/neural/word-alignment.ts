import type { WordTiming } from '@svc/core';

/** Energy frames of 10 ms: fine enough for word edges, one cheap pass over the samples. */
const FRAME_SECONDS = 0.01;
/** A frame is voiced above this fraction of the loudest frame's RMS (about -30 dB). */
const VOICED_FRACTION = 0.03;
/** Below this RMS (16-bit) a frame is silence whatever the peak, so a near-silent clip has no "speech". */
const ABSOLUTE_FLOOR = 30;
/** Shorter quiet runs are stop closures inside words, not pauses between them. */
const MIN_PAUSE_SECONDS = 0.05;
/** How far from its estimate a plain word boundary looks for a pause... */
const NEAR_SECONDS = 0.15;
/** ...and a boundary after punctuation, where the model surely paused. */
const NEAR_PUNCTUATION_SECONDS = 0.4;
const BREAK_AFTER = /[,.;:!?…)"»”]$/u;

interface Span {
  start: number;
  end: number;
}

/**
 * Aligns estimated word timings (token share, no durations from the model) to the audio itself:
 * the words are stretched over the voiced span (leading/trailing silence trimmed), and each word
 * boundary that lies near a pause snaps to it (the previous word ends where the pause starts, the
 * next starts where it ends). Boundaries after punctuation go first and take the longest pause
 * nearby (the model surely paused there); the others then take the nearest pause, estimated again
 * between the snapped ones. Words between snapped boundaries keep their estimated proportions.
 * Pure: samples in, times out.
 */
export function alignWordTimings(estimate: WordTiming[], samples: Int16Array, sampleRate: number): WordTiming[] {
  if (estimate.length === 0 || sampleRate <= 0) return estimate;
  const { voiced, pauses } = voicedSpanAndPauses(samples, sampleRate);
  if (!voiced) return estimate;
  const anchors = new Map<number, Span>(); // boundary i (between word i and i+1) -> its pause
  for (const punctuation of [true, false]) {
    const placed = layout(estimate, anchors, voiced);
    for (let i = 0; i + 1 < estimate.length; i++) {
      if (anchors.has(i) || (punctuation && !BREAK_AFTER.test(estimate[i]!.word.trim()))) continue;
      const pause = nearPause(pauses, placed[i]!.end, between(anchors, i, voiced), punctuation);
      if (pause) anchors.set(i, pause);
    }
  }
  return layout(estimate, anchors, voiced);
}

/** The estimate laid out piecewise linearly: each run of words between snapped boundaries fills its range. */
function layout(estimate: WordTiming[], anchors: Map<number, Span>, voiced: Span): WordTiming[] {
  const out: WordTiming[] = [];
  let first = 0;
  let from = voiced.start;
  for (let b = 0; b < estimate.length; b++) {
    const last = b === estimate.length - 1;
    const pause = anchors.get(b);
    if (!pause && !last) continue;
    const to = pause ? pause.start : voiced.end;
    const eStart = estimate[first]!.start;
    const eEnd = estimate[b]!.end;
    const k = eEnd > eStart ? (to - from) / (eEnd - eStart) : 0;
    for (let i = first; i <= b; i++) {
      const w = estimate[i]!;
      out.push({ word: w.word, start: from + (w.start - eStart) * k, end: from + (w.end - eStart) * k });
    }
    first = b + 1;
    from = pause ? pause.end : voiced.end;
  }
  return out;
}

/** The range a pause for boundary i must lie in: after the snapped boundary before it, before the one after. */
function between(anchors: Map<number, Span>, i: number, voiced: Span): Span {
  let start = voiced.start;
  let end = voiced.end;
  for (const [b, p] of anchors) {
    if (b < i && p.end > start) start = p.end;
    if (b > i && p.start < end) end = p.start;
  }
  return { start, end };
}

/** The pause to snap a boundary placed at `at` to, if one lies near it inside `range`. */
function nearPause(pauses: Span[], at: number, range: Span, punctuation: boolean): Span | undefined {
  const reach = punctuation ? NEAR_PUNCTUATION_SECONDS : NEAR_SECONDS;
  let best: Span | undefined;
  let bestScore = Infinity;
  for (const p of pauses) {
    if (p.start < range.start || p.end > range.end) continue;
    const distance = at < p.start ? p.start - at : at > p.end ? at - p.end : 0;
    if (distance > reach) continue;
    const score = punctuation ? -(p.end - p.start) : distance;
    if (score < bestScore) {
      bestScore = score;
      best = p;
    }
  }
  return best;
}

/** One pass of frame RMS: the voiced span (seconds) and the quiet runs inside it long enough to be pauses. */
export function voicedSpanAndPauses(samples: Int16Array, sampleRate: number): { voiced?: Span; pauses: Span[] } {
  const frame = Math.max(1, Math.round(sampleRate * FRAME_SECONDS));
  const frames = Math.floor(samples.length / frame);
  const rms = new Float64Array(frames);
  let peak = 0;
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let i = f * frame, end = i + frame; i < end; i++) sum += samples[i]! * samples[i]!;
    rms[f] = Math.sqrt(sum / frame);
    if (rms[f]! > peak) peak = rms[f]!;
  }
  const threshold = Math.max(ABSOLUTE_FLOOR, peak * VOICED_FRACTION);
  let firstVoiced = -1;
  let lastVoiced = -1;
  const pauses: Span[] = [];
  const minPause = Math.ceil(MIN_PAUSE_SECONDS / FRAME_SECONDS);
  for (let f = 0; f < frames; f++) {
    if (rms[f]! < threshold) continue;
    if (firstVoiced >= 0 && f - lastVoiced - 1 >= minPause)
      pauses.push({ start: ((lastVoiced + 1) * frame) / sampleRate, end: (f * frame) / sampleRate });
    if (firstVoiced < 0) firstVoiced = f;
    lastVoiced = f;
  }
  if (firstVoiced < 0) return { pauses };
  return {
    voiced: { start: (firstVoiced * frame) / sampleRate, end: Math.min(samples.length, (lastVoiced + 1) * frame) / sampleRate },
    pauses,
  };
}
