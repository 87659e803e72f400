import type { Clock } from '../../shared/clock.js';

/** Audio per `response.output_audio.delta` for pcm and pcmu (opus: one packet per delta). */
export const AUDIO_DELTA_MS = 40;
/** How far audio may run ahead of the listener's playback (`SVC_REALTIME_AUDIO_LEAD_MS`). */
export const DEFAULT_AUDIO_LEAD_MS = 500;

/**
 * The listener's playback position of one response, estimated from what was sent: playback starts
 * with the first audio delta and runs in real time; when the audio ran dry (synthesis slower than
 * playback) the player waited, so the clock restarts when audio flows again. Deltas leave at most
 * `maxLeadMs` ahead of it, which is the backpressure that pulls synthesis (and the model) only as
 * fast as the listener hears. `heardMs` is what barge-in cuts the reply at.
 */
export class PlaybackClock {
  private startedAt: number | null = null;
  private sentMs = 0;
  /** A barge-in being judged: no audio leaves; `frozen` when the listener was told to pause too. */
  private paused: { at: number; frozen: boolean } | null = null;
  private readonly resumeWaiters = new Set<() => void>();

  constructor(
    private readonly clock: Clock,
    private readonly maxLeadMs: number,
  ) {}

  /** Audio sent so far (ms of the response's audio timeline). */
  get sentAudioMs(): number {
    return this.sentMs;
  }

  /**
   * Resolves when `ms` more audio may leave (within the lead, and not paused); rejects nothing,
   * returns early when `signal` aborts.
   */
  async admit(ms: number, signal: AbortSignal): Promise<void> {
    for (;;) {
      if (this.paused) await this.untilResumed(signal);
      if (signal.aborted) return;
      const now = this.clock.now();
      if (this.startedAt === null || now - this.startedAt > this.sentMs) {
        // First audio, or the player ran dry: playback (re)starts with this delta.
        this.startedAt = now - this.sentMs;
      }
      const lead = this.sentMs - (now - this.startedAt);
      if (lead > this.maxLeadMs) await this.sleep(lead - this.maxLeadMs, signal);
      // Paused while waiting for room: the delta waits for the resume (and is measured again then).
      if (!this.paused || signal.aborted) break;
    }
    this.sentMs += ms;
  }

  /**
   * Stops admitting audio at once (a barge-in being judged). `listenerPauses`: the client was told
   * and pauses its player, so what it heard stops moving too; otherwise it plays what it holds and
   * runs dry, which the clock already models.
   */
  pause(listenerPauses: boolean): void {
    if (this.paused) return;
    this.paused = { at: this.clock.now(), frozen: listenerPauses };
  }

  /** Audio flows again; a paused listener's clock moves on from where it stopped. */
  resume(): void {
    const paused = this.paused;
    if (!paused) return;
    if (paused.frozen && this.startedAt !== null) this.startedAt += this.clock.now() - paused.at;
    this.paused = null;
    for (const wake of [...this.resumeWaiters]) wake();
  }

  /** Audio the listener has heard by now. */
  heardMs(): number {
    if (this.startedAt === null) return 0;
    const now = this.paused?.frozen ? this.paused.at : this.clock.now();
    return Math.max(0, Math.min(this.sentMs, now - this.startedAt));
  }

  private untilResumed(signal: AbortSignal): Promise<void> {
    if (!this.paused || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.resumeWaiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.resumeWaiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        cancel();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const cancel = this.clock.setTimer(ms, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
