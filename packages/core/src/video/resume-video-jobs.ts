import type { Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { VIDEO_QUEUE } from './create-video.js';
import type { JobQueue, VideoJobRepository } from './ports.js';
import { transition, type VideoJob } from './video-job.js';

/**
 * Nothing stays stuck, and nothing that started goes back. With the in-process queue (one process)
 * this runs at start: queued jobs are enqueued again; a job that was in_progress (the previous
 * process stopped during its render) is enqueued as it is, still in_progress at its progress (the
 * render that follows is a new attempt and reports nothing lower), unless it has already been
 * started `maxAttempts` times, in which case it fails with a message saying so.
 *
 * With a durable queue shared by several processes (`queue.holds` exists) the queue itself
 * re-delivers the job of a worker that died, and `reclaim` (called before each render) lets its
 * in_progress row run again within the same budget. `execute`, run at start and then
 * periodically by the workers, only repairs rows the queue does not hold: a queued row whose enqueue
 * was lost (a crash between the row and the queue) is enqueued; an in_progress row the queue does
 * not hold is a live stream render on some API process, or one whose process died. It is enqueued
 * only when a later scan finds it with the same progress (a live render moves on between scans).
 */
export class ResumeVideoJobs {
  /** In-progress rows no queue holds, and the progress they had when last seen (durable queues). */
  private readonly unheld = new Map<string, number>();

  constructor(
    private readonly jobs: VideoJobRepository,
    private readonly queue: JobQueue,
    private readonly clock: Clock,
    private readonly maxAttempts: number,
    private readonly logger: Logger = silentLogger,
  ) {}

  async execute(): Promise<{ requeued: number; failed: number }> {
    let requeued = 0;
    let failed = 0;
    const seen = new Set<string>();
    for (let job of await this.jobs.unfinished()) {
      if (this.queue.holds && (await this.queue.holds(VIDEO_QUEUE, job.id))) continue;
      if (job.status === 'in_progress') {
        if (this.queue.holds && !this.stalledSinceLastScan(job, seen)) continue;
        const next = await this.resumeOrFail(job);
        if (!next) continue;
        if (next.status === 'failed') {
          failed++;
          continue;
        }
        job = next;
      }
      await this.queue.enqueue(VIDEO_QUEUE, job.id);
      requeued++;
    }
    for (const id of this.unheld.keys()) if (!seen.has(id)) this.unheld.delete(id);
    if (requeued + failed > 0) this.logger.info({ requeued, failed }, 'unfinished videos resumed');
    return { requeued, failed };
  }

  /**
   * A durable queue delivered this job again: when its row is still in_progress, the worker that ran
   * it died or stopped mid-render. It runs again as it is (the render that follows is a new attempt,
   * in_progress throughout, never reporting less), or fails once the budget is spent. Resolves
   * false when the job must not run.
   */
  async reclaim(jobId: string): Promise<boolean> {
    const job = await this.jobs.get(jobId);
    if (job?.status !== 'in_progress') return true;
    this.logger.warn(
      { video: job.id, attempts: job.attempts, progress: job.progress },
      'video taken over from a worker that stopped during its render',
    );
    const next = await this.resumeOrFail(job);
    return next?.status === 'in_progress';
  }

  private stalledSinceLastScan(job: VideoJob, seen: Set<string>): boolean {
    seen.add(job.id);
    const before = this.unheld.get(job.id);
    this.unheld.set(job.id, job.progress);
    return before === job.progress;
  }

  /** The row as it is (it runs again), or failed when it has been started `maxAttempts` times; null when gone. */
  private async resumeOrFail(job: VideoJob): Promise<VideoJob | null> {
    if (job.attempts < this.maxAttempts) return job;
    const message = `The server stopped ${job.attempts} times while rendering this video, so it was given up; create it again (a shorter input helps).`;
    const failed = transition(job, 'failed', { error: message, at: this.clock.now() });
    return (await this.jobs.update(failed)) ? failed : null;
  }
}
