import type { Clock } from '@svc/core';

/**
 * The clock a call's media is timed on: monotonic (performance.now, not the wall clock an NTP
 * step could move) and in epoch milliseconds as the Clock port says. The reply audio and the
 * avatar's frames are scheduled on it, so their RTP timestamps share one timeline.
 */
export const mediaClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return () => clearTimeout(t);
  },
};
