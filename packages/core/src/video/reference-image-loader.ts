import { EmptyMediaError } from '../media/errors.js';
import { parseMediaReference } from '../media/inline-media.js';
import { readImageHeader, type ImageHeader } from '../media/image-header.js';
import type { MediaFetcher, MediaInput } from '../media/media-fetcher.js';
import { ImageDimensionsTooLargeError, InvalidImageError } from './errors.js';
import { VIDEO_LIMITS } from './video-limits.js';

export interface ReferenceImage {
  bytes: Uint8Array;
  header: ImageHeader;
}

/**
 * Fetches `ref_image` (URL through the SSRF-safe fetcher, data URI, base64 or uploaded bytes) and
 * checks it from its header bytes alone: the format must be PNG, JPEG or WEBP, and the declared
 * dimensions within the limits, before any decoder sees it.
 */
export class ReferenceImageLoader {
  constructor(private readonly fetcher: MediaFetcher) {}

  /**
   * `uploadable`: the request could have sent the photo as a multipart file (named in size errors);
   * `apiKeyId`: the caller, whose large transfers in progress a URL download counts in.
   */
  async load(
    input: MediaInput,
    signal?: AbortSignal,
    { uploadable = false, apiKeyId }: { uploadable?: boolean; apiKeyId?: string } = {},
  ): Promise<ReferenceImage> {
    const bytes = await this.fetcher.fetch(input, { param: 'ref_image', kind: 'image', uploadable, apiKeyId, signal });
    if (bytes.length === 0) throw new EmptyMediaError('ref_image');
    const header = readImageHeader(bytes);
    if (!header) throw new InvalidImageError();
    const { maxImageSide, maxImagePixels } = VIDEO_LIMITS;
    if (header.width > maxImageSide || header.height > maxImageSide || header.width * header.height > maxImagePixels) {
      throw new ImageDimensionsTooLargeError(header.width, header.height, maxImageSide, maxImagePixels);
    }
    return { bytes, header };
  }

  /**
   * What can be known of `input` without the network: an inline photo is decoded and its header
   * checked (as `load` does: it costs no fetch); a URL is held to the fetcher's network rules
   * (scheme, SSRF address policy) without being downloaded. Throws the errors `load` would.
   */
  async check(input: MediaInput, signal?: AbortSignal): Promise<void> {
    if (typeof input === 'string' && parseMediaReference(input, 'ref_image').kind === 'url') {
      await this.fetcher.checkUrl?.(input.trim(), { param: 'ref_image', ...(signal ? { signal } : {}) });
      return;
    }
    await this.load(input, signal);
  }
}
