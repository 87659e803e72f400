import { seededRandom } from '@svc/adapters-runtime';

/** One blink: when it starts and how long the lids take to close and open again (seconds). */
export interface Blink {
  start: number;
  duration: number;
}

/** One blink per slot of this length: 20 a minute (people blink 10-32 times a minute talking). */
const SLOT_SECONDS = 3.0;

/**
 * Blink times for a clip: one blink at a random place inside each 3 s slot (the first slot starts
 * at 0.4 s), so intervals are irregular (about 1-5 s apart) while the rate stays at 20 a minute over
 * any stretch longer than a few seconds; each blink 160-280 ms. Deterministic for a seed.
 */
export function blinkSchedule(durationSeconds: number, seed: number): Blink[] {
  const random = seededRandom(seed ^ 0x9e3779b9);
  const blinks: Blink[] = [];
  let previousEnd = -Infinity;
  for (let slot = 0.4; slot < durationSeconds; slot += SLOT_SECONDS) {
    const duration = 0.16 + random() * 0.12;
    const start = Math.max(slot + (0.1 + 0.8 * random()) * SLOT_SECONDS, previousEnd + 0.8);
    if (start + duration > durationSeconds - 0.1) break;
    blinks.push({ start, duration });
    previousEnd = start + duration;
  }
  return blinks;
}

/**
 * Lid closure at time t (0..1): a fast close (40 % of the blink) and a slower reopening, the shape
 * of a real blink; fully shut for the middle 37 % (60-100 ms), so at 25 fps at least one frame of
 * every blink shows the eye shut (a shorter plateau fell between frames: no blink was seen).
 */
export function blinkClosure(blinks: readonly Blink[], t: number): number {
  for (const b of blinks) {
    if (t < b.start) return 0;
    const x = (t - b.start) / b.duration;
    if (x > 1) continue;
    const closing = 0.4;
    const c = x < closing ? x / closing : 1 - (x - closing) / (1 - closing);
    return Math.min(1, Math.sin((Math.PI / 2) * Math.min(1, c * 1.6)));
  }
  return 0;
}
