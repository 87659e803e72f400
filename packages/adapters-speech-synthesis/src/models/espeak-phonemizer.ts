import { WorkerPool } from '@svc/adapters-runtime';
import type { PhonemizedWord } from './espeak-ipa.js';
import type { PhonemizeJob } from './espeak-phonemizer-worker.js';

export type { PhonemizedWord } from './espeak-ipa.js';

/**
 * espeak-ng phonemes for the neural voices, off the event loop: a worker thread with one warm
 * espeak-ng instance, shared by every neural engine. Reference counted: create() holds one
 * reference for its caller, each engine retains one while open; the thread stops when all are released.
 */
export class EspeakPhonemizer {
  private references = 1;

  private constructor(private readonly pool: WorkerPool<PhonemizeJob, PhonemizedWord[]>) {}

  static async create(workers = 1): Promise<EspeakPhonemizer> {
    const { pool } = await WorkerPool.start<PhonemizeJob, PhonemizedWord[]>({
      name: 'espeak-ng phonemizer',
      script: new URL('./espeak-phonemizer-worker.js', import.meta.url),
      size: workers,
    });
    return new EspeakPhonemizer(pool);
  }

  phonemize(text: string, voice: string, signal?: AbortSignal): Promise<PhonemizedWord[]> {
    return this.pool.run({ text, voice }, { signal });
  }

  retain(): this {
    this.references++;
    return this;
  }

  /** Drops one reference; the last one stops the thread. */
  async release(): Promise<void> {
    if (--this.references === 0) await this.pool.close();
  }
}
