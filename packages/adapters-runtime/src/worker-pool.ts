import { Worker } from 'node:worker_threads';
import { EngineError } from '@svc/core';
import { abortError } from './abort.js';
import { disableOnnxTelemetry } from './onnx-telemetry.js';
import type { JobMessage, WorkerMessage } from './worker-protocol.js';

export interface WorkerPoolOptions {
  /** Engine name, for error messages. */
  name: string;
  /** The compiled worker script (a sibling .js file, resolved with import.meta.url). */
  script: URL;
  size: number;
  workerData?: unknown;
  /**
   * Replace a worker after this many jobs. WASM engines that instantiate per call leave memory
   * reservations behind that the thread only releases when it ends; recycling bounds that.
   */
  maxJobsPerWorker?: number;
  /**
   * Stop every thread once the pool has had no job for this long (its engine's memory goes back
   * to the system); the next job starts them again, paying the engine's load once more. Unset:
   * threads live until close().
   */
  releaseAfterIdleMs?: number;
}

interface PendingJob<Req, Res> {
  id: number;
  /** Who asked ('' when nobody said): the queue serves askers in turn. */
  tenant: string;
  request: Req;
  transfer: ArrayBuffer[];
  cancel: Int32Array;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  resolve: (value: Res) => void;
  reject: (err: Error) => void;
  settled: boolean;
}

interface Slot<Req, Res> {
  worker: Worker;
  ready: boolean;
  job: PendingJob<Req, Res> | null;
  jobsDone: number;
  retiring: boolean;
  /** When its last job ended (performance.now(); 0 before the first): dispatch prefers the longest idle. */
  idleSince: number;
}

/**
 * A fixed number of worker threads each running one engine instance, fed from one queue that serves
 * its askers (`tenant`) in turn and each asker's jobs in order: one API key's burst of long texts
 * does not hold another key's sentence behind all of it.
 *
 * - `start()` loads every thread before it returns; `create()` starts none: the first job (or
 *   `warm()`) starts them and waits for them, so an engine nobody uses costs no memory.
 * - With `releaseAfterIdleMs`, the threads stop after that long without a job and the next job
 *   starts them again.
 *
 * - A worker gets one job at a time, so an engine that is not reentrant is safe.
 * - Abort: a queued job leaves the queue at once; a running job rejects at once, its cancel flag
 *   is raised (engines that can poll it stop early) and whatever the worker returns is discarded.
 * - A worker that crashes (WASM traps, segfault-free thread exit) fails only its current job and
 *   is replaced.
 * - Threads are ref'd only while busy, so an idle pool never keeps the process alive.
 *
 * Why not piscina (it installs from npm alone, and was weighed for this): piscina cancels a running
 * task by terminating its thread, and these threads hold an engine that takes seconds to load (a
 * Flite voice, an ONNX model, the face detector); a barge-in or a closed connection would reload it.
 * Here a running job only rejects and its cancel flag rises, the engine stays warm. Piscina also has
 * no start-up handshake that reports engine info (the voice list) or fails the start on an engine
 * that cannot load, nor a recycle after N jobs for the WASM engines' memory.
 */
export class WorkerPool<Req, Res> {
  private readonly slots = new Set<Slot<Req, Res>>();
  private readonly queue: PendingJob<Req, Res>[] = [];
  private nextId = 1;
  private closed = false;
  /** The threads being started (by warm() or the first job), until they are all ready or one failed. */
  private starting: Promise<unknown> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  private constructor(private readonly options: WorkerPoolOptions) {}

  /** Starts every worker and waits until all have loaded their engine. Returns the first worker's ready info. */
  static async start<Req, Res>(options: WorkerPoolOptions): Promise<{ pool: WorkerPool<Req, Res>; info: unknown }> {
    const pool = new WorkerPool<Req, Res>(options);
    try {
      const info = await pool.warm();
      return { pool, info };
    } catch (err) {
      await pool.close();
      throw err;
    }
  }

  /** A pool with no thread yet: the first job or `warm()` starts them. */
  static create<Req, Res>(options: WorkerPoolOptions): WorkerPool<Req, Res> {
    return new WorkerPool<Req, Res>(options);
  }

  /**
   * Starts the threads unless they run (or are starting) and resolves when all are ready, with the
   * first one's ready info. A failed start rejects, and the next call or job tries again.
   */
  warm(): Promise<unknown> {
    if (this.closed) return Promise.reject(new EngineError(`The ${this.options.name} engine is closed.`));
    if (this.starting) return this.starting;
    if (this.slots.size > 0) return Promise.resolve(this.info);
    const size = Math.max(1, Math.floor(this.options.size));
    const starting = Promise.all(Array.from({ length: size }, () => this.spawn())).then(
      (infos) => {
        this.info = infos[0];
        if (this.starting === starting) this.starting = null;
        this.scheduleRelease();
        return infos[0];
      },
      (err: unknown) => {
        if (this.starting === starting) this.starting = null;
        // Half a pool is no pool: the threads that did start stop, the jobs waiting for them fail.
        for (const slot of [...this.slots]) this.retire(slot);
        for (const job of this.queue.splice(0)) this.settle(job, () => job.reject(err as Error));
        throw err;
      },
    );
    this.starting = starting;
    return starting;
  }

  /** The ready info of the first thread of the last start (e.g. a voice list). */
  private info: unknown = undefined;

  /**
   * Stops the threads that have no job (memory back to the system), after a start in progress has
   * finished; the next job or `warm()` starts them again.
   */
  async release(): Promise<void> {
    this.cancelRelease();
    if (this.starting) await this.starting.catch(() => undefined);
    for (const slot of [...this.slots]) if (!slot.job) this.retire(slot);
  }

  /** Whether threads are running or starting (false before the first job, after an idle release, after close). */
  get started(): boolean {
    return this.slots.size > 0 || this.starting !== null;
  }

  run(request: Req, options: { transfer?: ArrayBuffer[]; signal?: AbortSignal; tenant?: string } = {}): Promise<Res> {
    const { signal } = options;
    if (this.closed) return Promise.reject(new EngineError(`The ${this.options.name} engine is closed.`));
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<Res>((resolve, reject) => {
      const job: PendingJob<Req, Res> = {
        id: this.nextId++,
        tenant: options.tenant ?? '',
        request,
        transfer: options.transfer ?? [],
        cancel: new Int32Array(new SharedArrayBuffer(4)),
        signal,
        onAbort: () => {
          Atomics.store(job.cancel, 0, 1);
          const queued = this.queue.indexOf(job);
          if (queued >= 0) this.queue.splice(queued, 1);
          this.settle(job, () => reject(abortError(signal)));
        },
        resolve,
        reject,
        settled: false,
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.cancelRelease();
      // The first job after create() or an idle release starts the threads; a failed start fails it.
      if (!this.started) this.warm().catch(() => undefined);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancelRelease();
    const closedError = new EngineError(`The ${this.options.name} engine was closed.`);
    for (const job of this.queue.splice(0)) this.settle(job, () => job.reject(closedError));
    const slots = [...this.slots];
    this.slots.clear();
    const busy = new Set(slots.filter((slot) => slot.job));
    for (const slot of busy) this.settle(slot.job!, () => slot.job!.reject(closedError));
    // A thread is not terminated in the middle of a job: a native call it made (a libvips decode,
    // an onnxruntime run) that completes into a torn-down thread aborts the whole process
    // ("terminate called after throwing an instance of 'Napi::Error'"). Its caller is answered at
    // once; the thread gets CLOSE_GRACE_MS to finish, then goes.
    await Promise.all(
      slots.map(async (slot) => {
        if (busy.has(slot)) await jobEnded(slot.worker, CLOSE_GRACE_MS);
        await slot.worker.terminate();
      }),
    );
  }

  /** Number of live worker threads (for tests and metrics). */
  get size(): number {
    return this.slots.size;
  }

  private spawn(): Promise<unknown> {
    // A thread may create an onnxruntime session: its telemetry is off before the thread starts.
    disableOnnxTelemetry();
    const worker = new Worker(this.options.script, { workerData: this.options.workerData });
    worker.unref();
    const slot: Slot<Req, Res> = { worker, ready: false, job: null, jobsDone: 0, retiring: false, idleSince: 0 };
    this.slots.add(slot);
    return new Promise<unknown>((resolveReady, rejectReady) => {
      worker.on('message', (message: WorkerMessage<Res>) => {
        switch (message.type) {
          case 'ready':
            slot.ready = true;
            resolveReady(message.info);
            this.dispatch();
            break;
          case 'init-error':
            this.slots.delete(slot);
            void worker.terminate();
            rejectReady(new EngineError(`The ${this.options.name} engine failed to start: ${message.message}`));
            break;
          case 'result':
          case 'error':
            this.finish(slot, message);
            break;
        }
      });
      worker.on('error', (err) => {
        if (!slot.ready) rejectReady(new EngineError(`The ${this.options.name} engine failed to start: ${err.message}`));
        this.lose(slot, err.message);
      });
      worker.on('exit', (code) => {
        if (!slot.ready) rejectReady(new EngineError(`The ${this.options.name} engine exited during start (code ${code}).`));
        if (!slot.retiring) this.lose(slot, `worker exited with code ${code}`);
      });
    });
  }

  /**
   * Queued jobs go to the threads idle the longest first. A thread that has just answered may still
   * be busy with what follows a job (Flite restores its WASM memory then, and made a whole new
   * instance before: longer than a short call itself), so handing it the next job at once made
   * sequential calls wait for that while the other thread sat ready.
   */
  private dispatch(): void {
    if (this.queue.length === 0) return;
    const idle = [...this.slots].filter((slot) => slot.ready && !slot.job && !slot.retiring).sort((a, b) => a.idleSince - b.idleSince);
    for (const slot of idle) {
      if (this.queue.length === 0) return;
      const job = this.takeNext();
      slot.job = job;
      slot.worker.ref();
      const message: JobMessage<Req> = { id: job.id, request: job.request, cancel: job.cancel };
      slot.worker.postMessage(message, job.transfer);
    }
  }

  /**
   * The next job to run: the oldest of the asker served longest ago (one never served first). With
   * one asker this is the queue's order.
   */
  private takeNext(): PendingJob<Req, Res> {
    let index = 0;
    let oldest = Infinity;
    const seen = new Set<string>();
    for (let i = 0; i < this.queue.length; i++) {
      const tenant = this.queue[i]!.tenant;
      if (seen.has(tenant)) continue;
      seen.add(tenant);
      const servedAt = this.servedAt.get(tenant) ?? -1;
      if (servedAt < oldest) {
        oldest = servedAt;
        index = i;
      }
    }
    const [job] = this.queue.splice(index, 1);
    this.servedAt.set(job!.tenant, ++this.served);
    return job!;
  }

  /** When each asker with queued work last had a job started (a count of jobs started). */
  private readonly servedAt = new Map<string, number>();
  private served = 0;

  private finish(slot: Slot<Req, Res>, message: Extract<WorkerMessage<Res>, { type: 'result' | 'error' }>): void {
    const job = slot.job;
    slot.job = null;
    slot.jobsDone++;
    slot.idleSince = performance.now();
    slot.worker.unref();
    if (job && job.id === message.id) {
      if (message.type === 'result') this.settle(job, () => job.resolve(message.value));
      else this.settle(job, () => job.reject(this.jobFailed(`${this.options.name}: ${message.message}`)));
    }
    const max = this.options.maxJobsPerWorker;
    if (max && slot.jobsDone >= max && !this.closed) this.recycle(slot);
    this.dispatch();
    // Turns only matter while there is work: an idle pool forgets its askers (the map stays small).
    if (this.queue.length === 0 && ![...this.slots].some((s) => s.job)) this.servedAt.clear();
    this.scheduleRelease();
  }

  /** With releaseAfterIdleMs: once nothing is queued or running, a timer that stops the threads. */
  private scheduleRelease(): void {
    const after = this.options.releaseAfterIdleMs;
    if (after === undefined || this.closed || this.idleTimer || this.queue.length > 0) return;
    if ([...this.slots].some((slot) => slot.job)) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.starting || this.queue.length > 0 || [...this.slots].some((slot) => slot.job)) return;
      for (const slot of [...this.slots]) this.retire(slot);
    }, after);
    this.idleTimer.unref();
  }

  private cancelRelease(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Stops a thread on purpose: its exit is not a crash. */
  private retire(slot: Slot<Req, Res>): void {
    slot.retiring = true;
    this.slots.delete(slot);
    void slot.worker.terminate();
  }

  /** The engine's own words (paths, errno) go to the log only; the caller gets what to do about it. */
  private jobFailed(detail: string): EngineError {
    return new EngineError(
      `The ${this.options.name} speech engine failed on this request. Try again; if it keeps failing, shorten or simplify the input, or report it with the request id.`,
      detail,
    );
  }

  /** Retires a worker that has done its share of jobs and starts a fresh one in its place. */
  private recycle(slot: Slot<Req, Res>): void {
    this.retire(slot);
    this.spawn().catch(() => this.failQueueIfNoWorkers());
  }

  /** A worker died: fail its job, replace it. */
  private lose(slot: Slot<Req, Res>, reason: string): void {
    if (!this.slots.has(slot)) return;
    this.slots.delete(slot);
    slot.retiring = true;
    const job = slot.job;
    if (job) this.settle(job, () => job.reject(this.jobFailed(`The ${this.options.name} engine crashed: ${reason}`)));
    if (this.closed) return;
    if (slot.ready) this.spawn().catch(() => this.failQueueIfNoWorkers());
    else this.failQueueIfNoWorkers();
  }

  private failQueueIfNoWorkers(): void {
    if (this.slots.size > 0) return;
    const err = new EngineError(`The ${this.options.name} engine has no running worker.`);
    for (const job of this.queue.splice(0)) this.settle(job, () => job.reject(err));
  }

  private settle(job: PendingJob<Req, Res>, action: () => void): void {
    if (job.settled) return;
    job.settled = true;
    job.signal?.removeEventListener('abort', job.onAbort);
    action();
  }
}

/** How long close() lets a thread finish the job it is in before terminating it. */
const CLOSE_GRACE_MS = 2000;

/** Resolves when `worker` answers its current job (or exits), or after `ms`. */
function jobEnded(worker: Worker, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', done);
      resolve();
    };
    const onMessage = (message: { type?: string }): void => {
      if (message?.type === 'result' || message?.type === 'error') done();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    worker.on('message', onMessage);
    worker.once('exit', done);
  });
}
