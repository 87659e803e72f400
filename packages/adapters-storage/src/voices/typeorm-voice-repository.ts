import type { VoicePage, VoicePageRequest, VoiceProfile, VoiceRecord, VoiceRepository, VoiceSummary } from '@svc/core';
import { In, type DataSource, type Repository } from 'typeorm';
import { toMillis } from '../columns.js';
import { VoiceEntity } from './voice.entity.js';
import { deleteOwned, newestFirstPage } from '../owned-rows.js';

const SUMMARY_COLUMNS = [
  'apiKeyId',
  'id',
  'refText',
  'description',
  'createdAt',
  'audioKey',
  'audioFormat',
  'audioBytes',
  'durationMs',
] as const;

/** Voice rows in SQLite or Postgres; every query is scoped by API key. */
export class TypeOrmVoiceRepository implements VoiceRepository {
  private readonly repo: Repository<VoiceEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(VoiceEntity);
  }

  /** Of these blob keys, the ones a voice row refers to (the orphaned-blob sweep's question). */
  async referencedAudioKeys(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.repo.find({ select: { audioKey: true }, where: { audioKey: In([...keys]) } });
    return new Set(rows.map((r) => r.audioKey));
  }

  async insertIfAbsent(record: VoiceRecord): Promise<{ record: VoiceRecord; created: boolean }> {
    // INSERT OR IGNORE (SQLite) / ON CONFLICT DO NOTHING (Postgres): a concurrent registration of the
    // same audio under the same key cannot fail or duplicate; whichever row is stored wins.
    await this.repo.createQueryBuilder().insert().into(VoiceEntity).values(toEntity(record)).orIgnore().execute();
    const stored = await this.find(record.apiKeyId, record.id);
    if (!stored) throw new Error(`voice ${record.id} vanished right after being stored`);
    return { record: stored, created: stored.audioKey === record.audioKey };
  }

  async find(apiKeyId: string, id: string): Promise<VoiceRecord | null> {
    const row = await this.repo.findOneBy({ apiKeyId, id });
    return row ? toRecord(row) : null;
  }

  /** One indexed count (the primary key starts with api_key_id), in the database every process shares. */
  count(apiKeyId: string): Promise<number> {
    return this.repo.countBy({ apiKeyId });
  }

  async list(apiKeyId: string, page: VoicePageRequest): Promise<VoicePage> {
    const query = this.repo.createQueryBuilder('v').select(SUMMARY_COLUMNS.map((c) => `v.${c}`));
    const { rows, hasMore } = await newestFirstPage(query, apiKeyId, page);
    return { voices: rows.map(toSummary), hasMore };
  }

  async delete(apiKeyId: string, id: string): Promise<VoiceRecord | null> {
    const row = await deleteOwned(this.repo, apiKeyId, id);
    return row ? toRecord(row) : null;
  }
}

function toEntity(record: VoiceRecord): VoiceEntity {
  return Object.assign(new VoiceEntity(), {
    apiKeyId: record.apiKeyId,
    id: record.id,
    refText: record.refText,
    description: record.description,
    createdAt: record.createdAt,
    audioKey: record.audioKey,
    audioFormat: record.audioFormat,
    audioBytes: record.audioBytes,
    durationMs: Math.round(record.durationSeconds * 1000),
    profile: JSON.stringify(record.profile),
  });
}

function toSummary(row: VoiceEntity): VoiceSummary {
  return {
    id: row.id,
    apiKeyId: row.apiKeyId,
    refText: row.refText,
    description: row.description,
    createdAt: toMillis(row.createdAt),
    audioKey: row.audioKey,
    audioFormat: row.audioFormat,
    audioBytes: Number(row.audioBytes),
    durationSeconds: Number(row.durationMs) / 1000,
  };
}

function toRecord(row: VoiceEntity): VoiceRecord {
  return { ...toSummary(row), profile: JSON.parse(row.profile) as VoiceProfile };
}
