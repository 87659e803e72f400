import type { Principal } from '../auth/api-key.js';
import { InvalidParameterError } from '../shared/errors.js';
import type { VideoJobRepository, VideoPage } from './ports.js';
import { VIDEO_LIMITS } from './video-limits.js';

export interface ListVideosQuery {
  limit?: number;
  /** A video id from a previous page: the listing continues after it. */
  after?: string;
}

/** GET /v1/videos: the caller's videos, newest first, in pages (as the voices list). */
export class ListVideos {
  constructor(private readonly jobs: VideoJobRepository) {}

  async execute(principal: Principal, query: ListVideosQuery = {}): Promise<VideoPage> {
    const limit = query.limit ?? VIDEO_LIMITS.listDefaultLimit;
    if (!Number.isInteger(limit) || limit < 1 || limit > VIDEO_LIMITS.listMaxLimit) {
      throw new InvalidParameterError(`'limit' must be an integer from 1 to ${VIDEO_LIMITS.listMaxLimit}.`, 'limit');
    }
    if (query.after === undefined) return this.jobs.list(principal.apiKeyId, { limit });
    // Looked up under the caller's key: another key's id is just an unknown cursor.
    const cursor = await this.jobs.find(principal.apiKeyId, query.after);
    if (!cursor) throw new InvalidParameterError(`'after' must be the id of one of your videos; '${query.after}' is not.`, 'after');
    return this.jobs.list(principal.apiKeyId, { limit, after: { createdAt: cursor.createdAt, id: cursor.id } });
  }
}
