import type { ClientSecretRecord, ClientSecretRepository } from '@svc/core';

/** For embedded use and tests; secrets vanish with the process. */
export class InMemoryClientSecretRepository implements ClientSecretRepository {
  private readonly byHash = new Map<string, ClientSecretRecord>();

  async insert(record: ClientSecretRecord): Promise<void> {
    if (this.byHash.has(record.secretHash)) throw new Error('duplicate client secret');
    this.byHash.set(record.secretHash, { ...record });
  }

  async findBySecretHash(hash: string): Promise<ClientSecretRecord | null> {
    const record = this.byHash.get(hash);
    return record ? { ...record } : null;
  }

  async deleteExpired(now: number): Promise<number> {
    let removed = 0;
    for (const [hash, record] of this.byHash) {
      if (record.expiresAt <= now) {
        this.byHash.delete(hash);
        removed++;
      }
    }
    return removed;
  }
}
