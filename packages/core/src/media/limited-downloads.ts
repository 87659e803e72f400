import type { LargeBodyLimit } from '../shared/large-body-limit.js';
import { isMediaUrl } from './inline-media.js';
import type { MediaFetcher, MediaFetchOptions, MediaInput } from './media-fetcher.js';

/**
 * A MediaFetcher whose URL downloads count against the caller's large transfers in progress (the
 * LargeBodyLimit the HTTP layer counts request bodies over 1 MiB in): a download can be as large as
 * the largest body (SVC_MEDIA_MAX_DOWNLOAD_BYTES, 25 MB), and without this one key could start any
 * number at once. The place is taken before anything is resolved or connected (over the cap: the
 * LargeBodyLimitError a large body gets, 429) and given back when the download ends, fails or is
 * aborted. Inline media and uploads are in the request's own body, counted there, and pass through.
 */
export class LimitedDownloads implements MediaFetcher {
  constructor(
    private readonly fetcher: MediaFetcher,
    private readonly limit: LargeBodyLimit,
  ) {}

  async fetch(input: MediaInput, options: MediaFetchOptions): Promise<Uint8Array> {
    if (options.apiKeyId === undefined || !isMediaUrl(input)) return this.fetcher.fetch(input, options);
    const end = this.limit.take(options.apiKeyId);
    try {
      return await this.fetcher.fetch(input, options);
    } finally {
      end();
    }
  }

  /** Checks without downloading: nothing to count. */
  async checkUrl(url: string, options: MediaFetchOptions): Promise<void> {
    await this.fetcher.checkUrl?.(url, options);
  }
}
