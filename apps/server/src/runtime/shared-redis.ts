import { openRedis, type Redis } from '@svc/adapters-storage';

/**
 * The Redis every process of a multi-process setup shares (SVC_REDIS_URL), or none: without it the
 * process keeps its limits and registries in memory (one machine, one process). One client per process.
 */
export class SharedRedis {
  readonly client: Redis | null;

  constructor(url: string) {
    this.client = url ? openRedis(url) : null;
  }

  /** Readiness: resolves when Redis answers (or none is configured). */
  async ping(): Promise<void> {
    if (!this.client) return;
    if (this.client.status !== 'ready') throw new Error(`Redis connection is ${this.client.status}`);
    await this.client.ping();
  }

  async close(): Promise<void> {
    if (!this.client) return;
    await this.client.quit().catch(() => this.client!.disconnect());
  }
}
