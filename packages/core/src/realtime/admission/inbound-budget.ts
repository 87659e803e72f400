/** What one connection may send: a sustained rate and a burst, in frames and in bytes. */
export interface InboundBudgetLimits {
  eventsPerSecond: number;
  burstEvents: number;
  bytesPerSecond: number;
  burstBytes: number;
}

/** How many seconds of its rate a connection may send at once (the buckets' size). */
export const INBOUND_BURST_SECONDS = 5;

/**
 * The limits every realtime transport applies (WebSocket frames, WebRTC data-channel messages):
 * bursts of INBOUND_BURST_SECONDS of the rate, and room for at least two of the largest message.
 */
export function inboundBudgetLimits(eventsPerSecond: number, bytesPerSecond: number, largestMessageBytes: number): InboundBudgetLimits {
  return {
    eventsPerSecond,
    burstEvents: eventsPerSecond * INBOUND_BURST_SECONDS,
    bytesPerSecond,
    burstBytes: Math.max(bytesPerSecond * INBOUND_BURST_SECONDS, 2 * largestMessageBytes),
  };
}

/**
 * Two token buckets (frames and bytes) for one connection's inbound messages, every message counted
 * whatever it holds (valid events, invalid JSON, binary). Both start full, refill continuously at
 * their rate up to their burst, and `take` refuses once either is short. `now` is the transport's
 * monotonic clock in milliseconds.
 */
export class InboundBudget {
  private events: number;
  private bytes: number;
  private updatedAt: number;

  constructor(
    readonly limits: InboundBudgetLimits,
    private readonly now: () => number,
  ) {
    this.events = limits.burstEvents;
    this.bytes = limits.burstBytes;
    this.updatedAt = now();
  }

  /** Counts one message of `size` bytes; false when it is over the budget. */
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

/**
 * The `error` a client over its budget gets before its connection ends (the same over every
 * transport; the transport adds the event id).
 */
export function inboundBudgetError(limits: InboundBudgetLimits) {
  const message = `This connection sent more than its budget of ${limits.eventsPerSecond} events or ${limits.bytesPerSecond} bytes per second; it is closed.`;
  return { type: 'invalid_request_error', code: 'rate_limit_exceeded', message, param: null, event_id: null } as const;
}
