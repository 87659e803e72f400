import type { ApiKeyRecord, ApiKeyRepository } from '@svc/core';

/** For tests and embedding: the same contract as the TypeORM repository, kept in a Map. */
export class InMemoryApiKeyRepository implements ApiKeyRepository {
  private readonly rows = new Map<string, ApiKeyRecord>();

  async insert(record: ApiKeyRecord): Promise<void> {
    if (this.rows.has(record.id)) throw new Error(`Duplicate key id ${record.id}`);
    this.rows.set(record.id, { ...record });
  }
  async findBySecretHash(hash: string): Promise<ApiKeyRecord | null> {
    for (const r of this.rows.values()) if (r.secretHash === hash) return { ...r };
    return null;
  }
  async findById(id: string): Promise<ApiKeyRecord | null> {
    const r = this.rows.get(id);
    return r ? { ...r } : null;
  }
  async list(): Promise<ApiKeyRecord[]> {
    return [...this.rows.values()].sort((a, b) => a.createdAt - b.createdAt).map((r) => ({ ...r }));
  }
  async revoke(id: string, at: number): Promise<boolean> {
    const r = this.rows.get(id);
    if (!r || r.revokedAt !== null) return false;
    r.revokedAt = at;
    return true;
  }
  async count(): Promise<number> {
    return this.rows.size;
  }
}
