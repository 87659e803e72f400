import type { ApiKeyRecord, ApiKeyRepository } from '@svc/core';
import { IsNull, type DataSource, type Repository } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity.js';
import { toMillis, toNullableMillis } from '../columns.js';

export class TypeOrmApiKeyRepository implements ApiKeyRepository {
  private readonly repo: Repository<ApiKeyEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(ApiKeyEntity);
  }

  async insert(record: ApiKeyRecord): Promise<void> {
    await this.repo.insert({ ...record });
  }

  async findBySecretHash(hash: string): Promise<ApiKeyRecord | null> {
    const row = await this.repo.findOneBy({ secretHash: hash });
    return row ? toRecord(row) : null;
  }

  async findById(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.repo.findOneBy({ id });
    return row ? toRecord(row) : null;
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.repo.find({ order: { createdAt: 'ASC' } });
    return rows.map(toRecord);
  }

  async revoke(id: string, at: number): Promise<boolean> {
    const result = await this.repo.update({ id, revokedAt: IsNull() }, { revokedAt: at });
    return (result.affected ?? 0) > 0;
  }

  count(): Promise<number> {
    return this.repo.count();
  }
}

function toRecord(row: ApiKeyEntity): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    secretHash: row.secretHash,
    prefix: row.prefix,
    createdAt: toMillis(row.createdAt),
    revokedAt: toNullableMillis(row.revokedAt),
  };
}
