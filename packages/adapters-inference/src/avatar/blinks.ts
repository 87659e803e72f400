import { gaussian, seededRandom } from './seeded-random.js';

/** One blink: when it starts and how long the lids take to close and open again (seconds). */
export interface Blink {
  start: number;
  duration: number;
}

/** Median gap between blinks: 3 s, i.e. about 20 a minute (people blink 10-32 times a minute talking). */
const MEDIAN_INTERVAL = 3.0;

/**
 * Blink times for a clip: log-normal intervals (how human blink intervals are distributed) around a
 * 3 s median, kept between 1.2 and 7 s, each blink 140-260 ms. Deterministic for a seed.
 */
export function blinkSchedule(durationSeconds: number, seed: number): Blink[] {
  const random = seededRandom(seed ^ 0x9e3779b9);
  const blinks: Blink[] = [];
  let t = 0.6 + random() * 1.6;
  while (t < durationSeconds - 0.3) {
    const duration = 0.14 + random() * 0.12;
    blinks.push({ start: t, duration });
    const interval = Math.min(7, Math.max(1.2, MEDIAN_INTERVAL * Math.exp(0.45 * gaussian(random))));
    t += duration + interval;
  }
  return blinks;
}

/**
 * Lid closure at time t (0..1): a fast close (40 % of the blink) and a slower reopening, the shape
 * of a real blink; fully shut for the middle frame of a 25 fps blink.
 */
export function blinkClosure(blinks: readonly Blink[], t: number): number {
  for (const b of blinks) {
    if (t < b.start) return 0;
    const x = (t - b.start) / b.duration;
    if (x > 1) continue;
    const closing = 0.4;
    const c = x < closing ? x / closing : 1 - (x - closing) / (1 - closing);
    return Math.min(1, Math.sin((Math.PI / 2) * Math.min(1, c * 1.25)));
  }
  return 0;
}
