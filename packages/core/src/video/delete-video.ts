import type { Principal } from '../auth/api-key.js';
import type { BlobStore } from '../shared/blob-store.js';
import { VideoNotFoundError } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import type { VideoJobRepository } from './ports.js';
import { videoBlobKeyList } from './video-blobs.js';
import type { VideoJob } from './video-job.js';

/** Removes a job's row, then its files (a crash in between leaves only unreferenced blobs). */
export async function removeVideo(jobs: VideoJobRepository, blobs: BlobStore, job: VideoJob, logger: Logger): Promise<boolean> {
  const removed = await jobs.delete(job.apiKeyId, job.id);
  if (!removed) return false;
  for (const key of videoBlobKeyList(removed)) {
    try {
      await blobs.delete(key);
    } catch (err) {
      logger.warn({ video: job.id, key, err: String(err) }, 'video deleted but one of its files could not be removed');
    }
  }
  return true;
}

/**
 * DELETE /v1/videos/{id}: the record and its files (inputs and MP4). A video being rendered is
 * deleted too; its render stops at its next progress write and stores nothing.
 */
export class DeleteVideo {
  constructor(
    private readonly jobs: VideoJobRepository,
    private readonly blobs: BlobStore,
    private readonly logger: Logger = silentLogger,
  ) {}

  async execute(principal: Principal, id: string): Promise<{ id: string }> {
    const job = await this.jobs.find(principal.apiKeyId, id);
    if (!job || !(await removeVideo(this.jobs, this.blobs, job, this.logger))) throw new VideoNotFoundError(id);
    return { id };
  }
}
