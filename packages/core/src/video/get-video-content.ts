import type { Principal } from '../auth/api-key.js';
import type { BlobStore } from '../shared/blob-store.js';
import { VideoNotFoundError, VideoNotReadyError } from '../shared/errors.js';
import { InvalidVideoVariantError } from './errors.js';
import type { VideoJobRepository } from './ports.js';
import { videoBlobKeys } from './video-blobs.js';

export const VIDEO_VARIANTS = ['video'] as const;

/**
 * GET /v1/videos/{id}/content: the MP4 of a completed video. Before completion (and after a
 * failure) it is a 404, as the spec says, with its own identifier so it is not mistaken for an
 * unknown id.
 */
export class GetVideoContent {
  constructor(
    private readonly jobs: VideoJobRepository,
    private readonly blobs: BlobStore,
  ) {}

  async execute(principal: Principal, id: string, variant: string | undefined): Promise<Uint8Array> {
    if (variant !== undefined && !(VIDEO_VARIANTS as readonly string[]).includes(variant)) throw new InvalidVideoVariantError(variant);
    const job = await this.jobs.find(principal.apiKeyId, id);
    if (!job) throw new VideoNotFoundError(id);
    if (job.status !== 'completed') throw new VideoNotReadyError(id, job.status === 'failed');
    const bytes = await this.blobs.get(videoBlobKeys(job).video);
    // Completed but no file: deleted meanwhile, or lost; either way there is nothing to serve.
    if (!bytes) throw new VideoNotFoundError(id);
    return bytes;
  }
}
