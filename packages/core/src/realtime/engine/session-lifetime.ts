import type { Clock } from '../../shared/clock.js';

/**
 * The two clocks that end a session: the idle timer (restarted by detected user speech) and the
 * wall-clock cap. Both run on the Clock port so tests move time instead of waiting.
 */
export class SessionLifetime {
  private lastSpeechAt: number;
  private cancelIdle: (() => void) | null = null;
  private cancelMax: (() => void) | null = null;
  readonly startedAt: number;

  constructor(
    private readonly clock: Clock,
    private readonly idleTimeoutMs: number,
    readonly maxDurationMs: number,
    private readonly onIdle: (secondsIdle: number) => void,
    private readonly onMaxDuration: () => void,
  ) {
    this.startedAt = clock.now();
    this.lastSpeechAt = this.startedAt;
  }

  start(): void {
    this.armIdle();
    this.cancelMax = this.clock.setTimer(this.maxDurationMs, () => {
      this.cancelMax = null;
      this.onMaxDuration();
    });
  }

  /** Detected user speech (or a user turn): the idle countdown starts again. */
  userSpoke(): void {
    this.lastSpeechAt = this.clock.now();
    if (this.cancelIdle) this.armIdle();
  }

  stop(): void {
    this.cancelIdle?.();
    this.cancelMax?.();
    this.cancelIdle = this.cancelMax = null;
  }

  private armIdle(): void {
    this.cancelIdle?.();
    this.cancelIdle = this.clock.setTimer(this.idleTimeoutMs, () => {
      this.cancelIdle = null;
      this.onIdle(Math.round((this.clock.now() - this.lastSpeechAt) / 1000));
    });
  }
}
