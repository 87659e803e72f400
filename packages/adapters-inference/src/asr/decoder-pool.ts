import pLimit, { type LimitFunction } from 'p-limit';
import { throwIfAborted } from '../speech/abort.js';
import type { PocketsphinxHelper } from './pocketsphinx-helper.js';

/** How long a turn waited for a free decoder: reported so a too-small pool is seen, not hidden. */
export interface DecoderWait {
  waitedMs: number;
  /** Turns still queued behind this one. */
  queued: number;
}

export interface DecoderPoolStats {
  size: number;
  busy: number;
  waiting: number;
  /** Turns that found every decoder busy, and their total and longest wait. */
  waits: number;
  totalWaitMs: number;
  maxWaitMs: number;
}

/**
 * A bounded pool of warm decoders shared by every session. `use()` lends one decoder for the length
 * of a task (a whole turn when streaming); when all are busy the task queues (p-limit keeps the
 * order) and its wait is reported. A decoder whose process died is replaced on its next loan.
 */
export class DecoderPool {
  private readonly limit: LimitFunction;
  private readonly idle: PocketsphinxHelper[];
  private readonly stats = { waits: 0, totalWaitMs: 0, maxWaitMs: 0 };

  constructor(
    helpers: PocketsphinxHelper[],
    private readonly spawn: () => PocketsphinxHelper,
    private readonly onWait: (wait: DecoderWait) => void = () => undefined,
  ) {
    this.idle = [...helpers];
    this.limit = pLimit(helpers.length);
  }

  use<T>(signal: AbortSignal | undefined, task: (helper: PocketsphinxHelper) => Promise<T>): Promise<T> {
    throwIfAborted(signal);
    const queuedAt = performance.now();
    const mustWait = this.limit.activeCount >= this.limit.concurrency;
    return this.limit(async () => {
      if (mustWait) this.noteWait(performance.now() - queuedAt);
      // A turn cancelled while it queued gives its place up at once.
      throwIfAborted(signal);
      const helper = await this.take();
      try {
        return await task(helper);
      } finally {
        this.idle.push(helper.alive ? helper : this.spawn());
      }
    });
  }

  get load(): DecoderPoolStats {
    return { size: this.limit.concurrency, busy: this.limit.activeCount, waiting: this.limit.pendingCount, ...this.stats };
  }

  close(): void {
    for (const helper of this.idle.splice(0)) helper.kill();
    this.limit.clearQueue();
  }

  private async take(): Promise<PocketsphinxHelper> {
    let helper = this.idle.pop()!;
    if (!helper.alive) helper = this.spawn();
    await helper.ready;
    return helper;
  }

  private noteWait(waitedMs: number): void {
    this.stats.waits++;
    this.stats.totalWaitMs += waitedMs;
    this.stats.maxWaitMs = Math.max(this.stats.maxWaitMs, waitedMs);
    this.onWait({ waitedMs, queued: this.limit.pendingCount });
  }
}
