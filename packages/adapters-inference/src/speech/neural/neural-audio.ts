import type { WordTiming } from '@svc/core';

/** A word of the input and the range [start, end) of the model tokens spelling it. */
export interface WordSpan {
  word: string;
  start: number;
  end: number;
}

/**
 * Word timings of one inference. With per-token durations from the model, a word spans the time
 * of its tokens; without them, words are timed in proportion to their share of the tokens.
 */
export function neuralWordTimings(spans: WordSpan[], tokens: number, seconds: number, durations?: Float32Array): WordTiming[] {
  const at = tokenClock(tokens, seconds, durations);
  return spans.filter((s) => s.word).map((s) => ({ word: s.word, start: at(s.start), end: at(s.end) }));
}

/** Seconds at which token i starts. */
function tokenClock(tokens: number, seconds: number, durations?: Float32Array): (i: number) => number {
  if (durations && durations.length === tokens) {
    const starts = new Float64Array(tokens + 1);
    for (let i = 0; i < tokens; i++) starts[i + 1] = starts[i]! + Math.max(0, durations[i]!);
    const total = starts[tokens]!;
    if (total > 0) return (i) => (starts[Math.min(tokens, i)]! / total) * seconds;
  }
  const perToken = tokens > 0 ? seconds / tokens : 0;
  return (i) => i * perToken;
}
