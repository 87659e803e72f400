import type { JobQueue, Logger } from '@svc/core';

type Handler = (jobId: string, signal: AbortSignal) => Promise<void>;

/**
 * The default JobQueue: a worker pool inside the server process. Job ids wait in memory (the job
 * rows in the database are the durable part: ResumeVideoJobs enqueues unfinished ones at start),
 * at most `concurrency` handlers run at once, and close() aborts the running ones and waits for
 * them, so no render or ffmpeg process outlives the service. The function `consume` resolves stops
 * one consumer only (its running jobs are aborted; jobs waiting stay for the other consumers). A Redis-backed queue with separate
 * worker processes can replace it behind the same port.
 */
export class InProcessJobQueue implements JobQueue {
  private readonly waiting = new Map<string, string[]>();
  /** Consumers per queue (a server and, in tests, more than one); the first one takes the work. */
  private readonly handlers = new Map<string, Handler[]>();
  private readonly running = new Map<Promise<void>, { controller: AbortController; handler: Handler }>();
  private stopped = false;

  constructor(
    private readonly concurrency: number,
    private readonly logger?: Logger,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('JobQueue concurrency must be a positive integer');
  }

  async enqueue(queue: string, jobId: string): Promise<void> {
    if (this.stopped) return;
    const list = this.waiting.get(queue) ?? [];
    if (!list.includes(jobId)) list.push(jobId);
    this.waiting.set(queue, list);
    this.pump();
  }

  /** The stop function unregisters this consumer and aborts (and awaits) only its running jobs. */
  async consume(queue: string, handler: Handler): Promise<() => Promise<void>> {
    const own = (h: Handler) => h !== handler;
    this.handlers.set(queue, [...(this.handlers.get(queue) ?? []), handler]);
    this.pump();
    return async () => {
      this.handlers.set(queue, (this.handlers.get(queue) ?? []).filter(own));
      const mine = [...this.running].filter(([, run]) => run.handler === handler);
      for (const [, run] of mine) run.controller.abort(new Error('consumer stopping'));
      await Promise.allSettled(mine.map(([p]) => p));
    };
  }

  /** Jobs waiting plus running (for metrics and tests). */
  get size(): { waiting: number; running: number } {
    let waiting = 0;
    for (const list of this.waiting.values()) waiting += list.length;
    return { waiting, running: this.running.size };
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.waiting.clear();
    for (const { controller } of this.running.values()) controller.abort(new Error('service stopping'));
    await Promise.allSettled([...this.running.keys()]);
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.concurrency) {
      const next = this.take();
      if (!next) return;
      const controller = new AbortController();
      const run = next
        .handler(next.jobId, controller.signal)
        .catch((err: unknown) => this.logger?.warn({ job: next.jobId, err: String(err) }, 'job handler ended with an error'))
        .finally(() => {
          this.running.delete(run);
          this.pump();
        });
      this.running.set(run, { controller, handler: next.handler });
    }
  }

  private take(): { jobId: string; handler: Handler } | null {
    for (const [queue, list] of this.waiting) {
      const handler = this.handlers.get(queue)?.[0];
      if (handler && list.length > 0) return { jobId: list.shift()!, handler };
    }
    return null;
  }
}
