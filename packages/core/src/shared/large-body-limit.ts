import { CountsByKey } from './counts-by-key.js';
import { LargeBodyLimitError } from './errors.js';

/**
 * The per-key cap of large transfers in progress (SVC_MAX_LARGE_BODIES_PER_KEY; 0: no limit): request
 * bodies over 1 MiB (the HTTP layer takes a place before reading one) and media the server downloads
 * on a caller's behalf (a ref_audio, ref_image or input URL, up to SVC_MEDIA_MAX_DOWNLOAD_BYTES each:
 * LimitedDownloads takes a place before connecting). Each holds its bytes several times over while it
 * is read, parsed and decoded; the rate limit bounds how often a key asks, this how much it holds at
 * once. One count per key for both, so neither opens a way around the other.
 */
export class LargeBodyLimit {
  private readonly open = new CountsByKey();

  constructor(readonly max: number) {}

  /**
   * One more large transfer of `apiKeyId`, or LargeBodyLimitError (429) when the key already has `max`
   * in progress. The returned function ends it (calling it again does nothing).
   */
  take(apiKeyId: string): () => void {
    if (this.max <= 0) return () => undefined;
    if (this.open.of(apiKeyId) >= this.max) throw new LargeBodyLimitError(this.max);
    this.open.add(apiKeyId);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.open.remove(apiKeyId);
    };
  }
}
