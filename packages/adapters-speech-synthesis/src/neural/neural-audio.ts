import type { WordTiming } from '@svc/core';
import { alignWordTimings } from './word-alignment.js';

/** A word of the input and the range [start, end) of the model tokens spelling it. */
export interface WordSpan {
  word: string;
  start: number;
  end: number;
}

/**
 * Word timings of one inference. With per-token durations from the model, a word spans the time
 * of its tokens; without them, words get their share of the tokens, then (given the audio) that
 * estimate is aligned to the audio's voiced span and pauses.
 */
export function neuralWordTimings(
  spans: WordSpan[],
  tokens: number,
  seconds: number,
  durations?: Float32Array,
  audio?: { samples: Int16Array; sampleRate: number },
): WordTiming[] {
  const fromDurations = durationClock(tokens, seconds, durations);
  const at = fromDurations ?? ((i: number) => (tokens > 0 ? (i * seconds) / tokens : 0));
  const timings = spans.filter((s) => s.word).map((s) => ({ word: s.word, start: at(s.start), end: at(s.end) }));
  return fromDurations || !audio ? timings : alignWordTimings(timings, audio.samples, audio.sampleRate);
}

/** Seconds at which token i starts, from the model's per-token durations; undefined without usable ones. */
function durationClock(tokens: number, seconds: number, durations?: Float32Array): ((i: number) => number) | undefined {
  if (!durations || durations.length !== tokens) return undefined;
  const starts = new Float64Array(tokens + 1);
  for (let i = 0; i < tokens; i++) starts[i + 1] = starts[i]! + Math.max(0, durations[i]!);
  const total = starts[tokens]!;
  return total > 0 ? (i) => (starts[Math.min(tokens, i)]! / total) * seconds : undefined;
}
