/** What one connection may send: a sustained rate and a burst, in frames and in bytes. */
export interface InboundBudgetLimits {
  eventsPerSecond: number;
  burstEvents: number;
  bytesPerSecond: number;
  burstBytes: number;
}

/**
 * Two token buckets (frames and bytes) for one connection's inbound frames, every frame counted
 * whatever it holds (valid events, invalid JSON, binary). Both start full, refill continuously at
 * their rate up to their burst, and `take` refuses once either is short. Time is a monotonic clock
 * in milliseconds.
 */
export class InboundBudget {
  private events: number;
  private bytes: number;
  private updatedAt: number;

  constructor(
    readonly limits: InboundBudgetLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.events = limits.burstEvents;
    this.bytes = limits.burstBytes;
    this.updatedAt = now();
  }

  /** Counts one frame of `size` bytes; false when it is over the budget. */
  take(size: number): boolean {
    const now = this.now();
    const seconds = Math.max(0, now - this.updatedAt) / 1000;
    this.updatedAt = now;
    this.events = Math.min(this.limits.burstEvents, this.events + seconds * this.limits.eventsPerSecond);
    this.bytes = Math.min(this.limits.burstBytes, this.bytes + seconds * this.limits.bytesPerSecond);
    this.events -= 1;
    this.bytes -= size;
    return this.events >= 0 && this.bytes >= 0;
  }
}
