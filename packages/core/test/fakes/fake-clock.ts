import type { Clock } from '../../src/shared/clock.js';

/** A clock that only moves when told to; timers fire as time passes them. */
export class FakeClock implements Clock {
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;
  constructor(private current = 1_700_000_000_000) {}
  now(): number {
    return this.current;
  }
  setTimer(ms: number, fn: () => void): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.current + ms, fn, id });
    return () => {
      this.timers = this.timers.filter((t) => t.id !== id);
    };
  }
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t.id !== due.id);
      this.current = due.at;
      due.fn();
    }
    this.current = target;
  }
}
