import { frameLevelsDbfs, whiteNoise } from './librivox.js';

/**
 * Speech as a browser's noise suppression passes it on, roughly: each 10 ms frame (at 16 kHz) below
 * `belowDbfs` turned down by `byDb`. The room's noise between words goes, and so does the soft end of
 * a word that sits at its level (a creaky last word: Chromium's suppressor took a recording's -45 dBFS
 * noise for the room and turned "them" down to -57 to -70 dBFS, docs/benchmarks.md).
 */
export function noiseSuppressed(samples: Int16Array, belowDbfs = -40, byDb = 25): Int16Array {
  const gain = 10 ** (-byDb / 20);
  const levels = frameLevelsDbfs(samples, 16000);
  // A last part frame (under 10 ms) goes with the last whole one.
  return samples.map((x, i) => ((levels[Math.min(Math.floor(i / 160), levels.length - 1)] ?? 0) >= belowDbfs ? x : Math.round(x * gain)));
}

/** What such a suppressor leaves of a quiet room (about -82 dBFS): the silence between phrases. */
export function suppressedRoom(ms: number, seed = 7): Int16Array {
  return whiteNoise(ms, 2, 16000, seed);
}
