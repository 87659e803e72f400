import type { Principal } from '../auth/api-key.js';
import { VideoNotFoundError } from '../shared/errors.js';
import type { VideoJobRepository } from './ports.js';
import type { VideoJob } from './video-job.js';

/** GET /v1/videos/{id}: unknown and another key's videos are the same 404. */
export class GetVideo {
  constructor(private readonly jobs: VideoJobRepository) {}

  async execute(principal: Principal, id: string): Promise<VideoJob> {
    const job = await this.jobs.find(principal.apiKeyId, id);
    if (!job) throw new VideoNotFoundError(id);
    return job;
  }
}
