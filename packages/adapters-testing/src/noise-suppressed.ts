import { whiteNoise } from './librivox.js';

/**
 * Speech as a browser's noise suppression passes it on, roughly: each 10 ms frame (at 16 kHz) below
 * `belowDbfs` turned down by `byDb`. The room's noise between words goes, and so does the soft end of
 * a word that sits at its level (a creaky last word: Chromium's suppressor took a recording's -45 dBFS
 * noise for the room and turned "them" down to -57 to -70 dBFS, docs/benchmarks.md).
 */
export function noiseSuppressed(samples: Int16Array, belowDbfs = -40, byDb = 25): Int16Array {
  const out = new Int16Array(samples.length);
  const gain = 10 ** (-byDb / 20);
  for (let at = 0; at < samples.length; at += 160) {
    const frame = samples.subarray(at, at + 160);
    const meanSquare = frame.reduce((sum, x) => sum + x * x, 0) / frame.length;
    const dbfs = 10 * Math.log10(meanSquare + 1e-9) - 20 * Math.log10(32768);
    frame.forEach((x, i) => (out[at + i] = dbfs >= belowDbfs ? x : Math.round(x * gain)));
  }
  return out;
}

/** What such a suppressor leaves of a quiet room (about -82 dBFS): the silence between phrases. */
export function suppressedRoom(ms: number, seed = 7): Int16Array {
  return whiteNoise(ms, 2, 16000, seed);
}
