import type { ClientSecretRecord, ClientSecretRepository } from '@svc/core';
import { LessThanOrEqual, type DataSource, type Repository } from 'typeorm';
import { toMillis } from '../columns.js';
import { ClientSecretEntity } from './client-secret.entity.js';

export class TypeOrmClientSecretRepository implements ClientSecretRepository {
  private readonly repo: Repository<ClientSecretEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(ClientSecretEntity);
  }

  async insert(record: ClientSecretRecord): Promise<void> {
    await this.repo.insert({ ...record });
  }

  async findBySecretHash(hash: string): Promise<ClientSecretRecord | null> {
    const row = await this.repo.findOneBy({ secretHash: hash });
    return row ? toRecord(row) : null;
  }

  async deleteExpired(now: number): Promise<number> {
    const result = await this.repo.delete({ expiresAt: LessThanOrEqual(now) });
    return result.affected ?? 0;
  }
}

function toRecord(row: ClientSecretEntity): ClientSecretRecord {
  return {
    id: row.id,
    secretHash: row.secretHash,
    apiKeyId: row.apiKeyId,
    apiKeyName: row.apiKeyName,
    createdAt: toMillis(row.createdAt),
    expiresAt: toMillis(row.expiresAt),
  };
}
