import { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';

/**
 * Worker threads started on first use and shared after that (a renderer's threads come up with
 * its first request or its warm-up, not at construction); a start that failed is not remembered,
 * so the next caller tries again.
 */
export class LazyWorkerPool<Req, Res> {
  private started: Promise<WorkerPool<Req, Res>> | null = null;

  constructor(private readonly options: WorkerPoolOptions) {}

  get(): Promise<WorkerPool<Req, Res>> {
    this.started ??= WorkerPool.start<Req, Res>(this.options).then(
      ({ pool }) => pool,
      (err: unknown) => {
        this.started = null;
        throw err;
      },
    );
    return this.started;
  }

  /** Stops the threads if they were started (a failed start is ignored). */
  async close(): Promise<void> {
    const started = this.started;
    this.started = null;
    await (await started?.catch(() => null))?.close();
  }
}
