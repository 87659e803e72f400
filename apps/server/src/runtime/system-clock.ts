import type { Clock } from '@svc/core';

export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
  setTimer(ms: number, fn: () => void): () => void {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return () => clearTimeout(t);
  }
}
