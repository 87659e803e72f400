import { createRequire } from 'node:module';
import type { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { silentLogger, type JobQueue, type Logger } from '@svc/core';
import { ioredis, REDIS_COMMAND_TIMEOUT_MS } from './redis-connection.js';
import { settlesWithin } from '../settles-within.js';

/** BullMQ, loaded when a shared queue is made (a one-process server never loads it). */
const bullmq = (): typeof import('bullmq') => createRequire(import.meta.url)('bullmq') as typeof import('bullmq');

type Handler = (jobId: string, signal: AbortSignal) => Promise<void>;

export interface BullMqJobQueueOptions {
  /** redis://host:port/db of the shared Redis. */
  url: string;
  /** Key prefix of every queue key (the processes of one deployment share it). */
  prefix: string;
  /** Jobs run at once by this process's consumer. */
  concurrency: number;
  /**
   * How long a running job's lock lives without renewal (the worker renews it every half of this).
   * A worker that dies loses its lock; its job goes back to waiting at the next stalled check, which
   * runs every `lockMs` too: a killed worker's job is taken over within about 2 x lockMs.
   */
  lockMs: number;
  /**
   * Deliveries of one job the queue allows when its handler throws or its worker dies (the job
   * rows count interrupted renders themselves; this bounds the queue's own retries).
   */
  maxDeliveries: number;
  /**
   * How long stopping waits for Redis (returning running jobs to the queue, closing the consumers)
   * before it lets go of the connections: a Redis that does not answer must not hold a shutdown.
   * A job that could not be returned is taken over once its lock expires. Default 2 s.
   */
  stopTimeoutMs?: number;
  logger?: Logger;
}

const DEFAULT_STOP_TIMEOUT_MS = 2_000;

/**
 * The JobQueue of a multi-process deployment: BullMQ on the shared Redis. The job id is the video
 * id (adding a job the queue already holds does nothing), the payload is empty (the row in the
 * database is the job), finished jobs are removed at once (the row keeps the outcome). A worker
 * that dies mid-render stops renewing its lock and the job is re-delivered to another worker
 * (stalled-job recovery); a worker that stops on purpose aborts its renders and puts their jobs
 * straight back to waiting, so another worker starts them at once.
 */
export class BullMqJobQueue implements JobQueue {
  private readonly queues = new Map<string, Queue>();
  /**
   * For enqueue and holds: fails fast while Redis is down (the request gets a clean error), and after
   * REDIS_COMMAND_TIMEOUT_MS when it is connected and does not answer (only the queues' short commands
   * and scripts run here; the workers' blocking commands have connections of their own).
   */
  private readonly commands: Redis;
  private readonly workers = new Map<Worker, Redis>();
  private stopping = false;

  constructor(private readonly options: BullMqJobQueueOptions) {
    this.commands = new (ioredis().Redis)(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    // Errors surface in the calls that use the connection; the event only keeps ioredis quiet.
    this.commands.on('error', () => undefined);
  }

  async enqueue(queue: string, jobId: string): Promise<void> {
    await this.queue(queue).add(
      'run',
      {},
      {
        jobId,
        attempts: this.options.maxDeliveries,
        backoff: { type: 'exponential', delay: 1_000 },
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }

  async holds(queue: string, jobId: string): Promise<boolean> {
    const state = await this.queue(queue).getJobState(jobId);
    return state !== 'unknown' && state !== 'completed' && state !== 'failed';
  }

  async consume(queue: string, handler: Handler): Promise<() => Promise<void>> {
    const logger = this.options.logger ?? silentLogger;
    const connection = new (ioredis().Redis)(this.options.url, {
      maxRetriesPerRequest: null,
      retryStrategy: (n) => Math.min(n * 200, 2_000),
    });
    connection.on('error', () => undefined); // surfaced by the worker's own 'error' event
    const worker = new (bullmq().Worker)(
      queue,
      async (job: Job, token?: string, signal?: AbortSignal) => {
        const controller = new AbortController();
        const onAbort = () => controller.abort(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        logger.info({ queue, job: job.id, delivery: job.attemptsStarted, stalled: job.stalledCounter }, 'job started');
        try {
          await handler(job.id!, controller.signal);
        } catch (err) {
          if (!controller.signal.aborted || !token) throw err;
          // Stopping on purpose: the job goes straight back to waiting for another worker. If Redis
          // does not take it in time, its lock expires and another worker takes it over anyway.
          if (!(await settlesWithin(job.moveToWait(token), this.waitForRedisMs(connection)))) {
            logger.warn({ queue, job: job.id }, 'Redis did not take the job back while stopping; it is taken over when its lock expires');
            throw err;
          }
          throw new (bullmq().WaitingError)();
        } finally {
          signal?.removeEventListener('abort', onAbort);
        }
      },
      {
        connection,
        prefix: this.options.prefix,
        concurrency: this.options.concurrency,
        lockDuration: this.options.lockMs,
        stalledInterval: this.options.lockMs,
        maxStalledCount: this.options.maxDeliveries,
        autorun: true,
      },
    );
    worker.on('error', (err) => logger.warn({ queue, err: String(err) }, 'job queue worker error'));
    worker.on('failed', (job, err) => logger.warn({ queue, job: job?.id, err: String(err) }, 'job delivery failed'));
    this.workers.set(worker, connection);
    await worker.waitUntilReady();
    return async () => {
      if (!this.workers.has(worker)) return;
      await this.stopConsumer(worker, 'consumer stopping');
    };
  }

  /** Stops every consumer (their running jobs go back to waiting), then the connections; bounded by `stopTimeoutMs`. */
  async close(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await Promise.all([...this.workers.keys()].map((worker) => this.stopConsumer(worker, 'service stopping')));
    if (!(await settlesWithin(Promise.all([...this.queues.values()].map((q) => q.close())), this.waitForRedisMs(this.commands)))) {
      (this.options.logger ?? silentLogger).warn({}, 'job queue: Redis did not answer while closing the queues; connections dropped');
    }
    this.commands.disconnect();
  }

  /** How long stopping waits for Redis over `connection`: not at all while it is not connected. */
  private waitForRedisMs(connection: Redis): number {
    return connection.status === 'ready' ? (this.options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS) : 0;
  }

  /**
   * Aborts the consumer's running jobs (they return to waiting) and closes it; when Redis does not
   * answer within `stopTimeoutMs` its connection is dropped instead of waited on.
   */
  private async stopConsumer(worker: Worker, reason: string): Promise<void> {
    const connection = this.workers.get(worker)!;
    this.workers.delete(worker);
    const closing = worker.close();
    worker.cancelAllJobs(reason);
    if (
      await settlesWithin(
        closing.then(() => worker.disconnect()),
        this.waitForRedisMs(connection),
      )
    )
      return;
    (this.options.logger ?? silentLogger).warn(
      {},
      'job queue: Redis did not answer while stopping; its running jobs are taken over when their locks expire',
    );
    // Forced: the close no longer waits for the blocking connection, which is dropped with ours.
    void worker.close(true).catch(() => undefined);
    connection.disconnect();
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new (bullmq().Queue)(name, { connection: this.commands, prefix: this.options.prefix });
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }
}
