import type { BlobStore } from '../shared/blob-store.js';
import type { Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { removeVideo } from './delete-video.js';
import type { VideoJobRepository } from './ports.js';

/**
 * The retention sweep: removes finished videos (row and files) whose expiry time has passed. Jobs
 * still queued or rendering are never touched. Runs in batches so one sweep stays short.
 */
export class SweepExpiredVideos {
  constructor(
    private readonly jobs: VideoJobRepository,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly logger: Logger = silentLogger,
    private readonly batch = 100,
  ) {}

  /** Resolves to the number of videos removed. */
  async execute(): Promise<number> {
    let removed = 0;
    for (;;) {
      const expired = await this.jobs.expired(this.clock.now(), this.batch);
      for (const job of expired) if (await removeVideo(this.jobs, this.blobs, job, this.logger)) removed++;
      if (expired.length < this.batch) break;
    }
    if (removed > 0) this.logger.info({ removed }, 'expired videos removed');
    return removed;
  }
}
