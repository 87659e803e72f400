import type { BlobStore } from './blob-store.js';
import type { Clock } from './clock.js';
import { silentLogger, type Logger } from './logger.js';

/** The capability that owns the blobs under `prefix` and says which of them a row still refers to. */
export interface BlobOwner {
  prefix: string;
  referenced(keys: readonly string[]): Promise<Set<string>>;
}

/**
 * Housekeeping: removes blobs no row refers to. They are left by a crash between a blob write and
 * its row (or after a row was deleted and its file delete failed), and by half-written temporary
 * files. Only blobs older than `graceMs` are considered, so a write whose row is about to be
 * inserted is never taken for an orphan. Keys are checked with their owner in batches.
 */
export class SweepOrphanedBlobs {
  constructor(
    private readonly blobs: BlobStore,
    private readonly owners: readonly BlobOwner[],
    private readonly clock: Clock,
    private readonly graceMs: number,
    private readonly logger: Logger = silentLogger,
    private readonly batch = 200,
  ) {}

  /** Resolves to the number of blobs removed (0 when the store cannot list). */
  async execute(): Promise<number> {
    if (!this.blobs.list) return 0;
    const cutoff = this.clock.now() - this.graceMs;
    let removed = 0;
    for (const owner of this.owners) {
      let pending: string[] = [];
      const flush = async () => {
        const keep = await owner.referenced(pending);
        for (const key of pending) {
          if (keep.has(key)) continue;
          await this.blobs.delete(key);
          removed++;
        }
        pending = [];
      };
      for await (const blob of this.blobs.list(owner.prefix)) {
        if (blob.modifiedAt > cutoff) continue;
        pending.push(blob.key);
        if (pending.length >= this.batch) await flush();
      }
      if (pending.length > 0) await flush();
    }
    if (removed > 0) this.logger.info({ removed }, 'orphaned blobs removed');
    return removed;
  }
}
