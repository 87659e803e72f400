import { abortError } from '../speech/abort.js';

interface Waiter {
  start: () => void;
}

/**
 * Runs at most `limit` tasks at once; the rest wait in order. A waiting task whose signal aborts
 * leaves the queue at once instead of holding its place.
 */
export class ConcurrencyLimiter {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`Concurrency limit must be an integer >= 1, got ${limit}.`);
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /** Tasks running now and tasks waiting for a slot (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(abortError(signal));
      };
      const waiter: Waiter = {
        // The releasing task hands its slot over: `running` is unchanged.
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running--;
  }
}
