import type { Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { VIDEO_QUEUE } from './create-video.js';
import type { JobQueue, VideoJobRepository } from './ports.js';
import { transition } from './video-job.js';

/**
 * At start: nothing stays stuck. Queued jobs are enqueued again; a job that was in_progress (the
 * previous process stopped during its render) is queued again, unless it has already been started
 * `maxAttempts` times, in which case it fails with a message saying so.
 */
export class ResumeVideoJobs {
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
    for (let job of await this.jobs.unfinished()) {
      if (job.status === 'in_progress') {
        if (job.attempts >= this.maxAttempts) {
          const message = `The server stopped ${job.attempts} times while rendering this video, so it was given up; create it again (a shorter input helps).`;
          await this.jobs.update(transition(job, 'failed', { error: message, at: this.clock.now() }));
          failed++;
          continue;
        }
        job = transition(job, 'queued');
        if (!(await this.jobs.update(job))) continue;
      }
      await this.queue.enqueue(VIDEO_QUEUE, job.id);
      requeued++;
    }
    if (requeued + failed > 0) this.logger.info({ requeued, failed }, 'unfinished videos resumed');
    return { requeued, failed };
  }
}
