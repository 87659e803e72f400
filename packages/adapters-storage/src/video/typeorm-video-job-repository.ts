import type { VideoJob, VideoJobRepository, VideoPage, VideoPageRequest } from '@svc/core';
import { In, LessThanOrEqual, type DataSource, type Repository } from 'typeorm';
import { toMillis, toNullableMillis } from '../columns.js';
import { VideoJobEntity } from './video-job.entity.js';
import { deleteOwned, newestFirstPage } from '../owned-rows.js';

/** Video job rows in SQLite or Postgres; every query made for a caller is scoped by API key. */
export class TypeOrmVideoJobRepository implements VideoJobRepository {
  private readonly repo: Repository<VideoJobEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(VideoJobEntity);
  }

  async insert(job: VideoJob): Promise<void> {
    await this.repo.insert(toEntity(job));
  }

  async find(apiKeyId: string, id: string): Promise<VideoJob | null> {
    const row = await this.repo.findOneBy({ apiKeyId, id });
    return row ? toJob(row) : null;
  }

  async get(id: string): Promise<VideoJob | null> {
    const row = await this.repo.findOneBy({ id });
    return row ? toJob(row) : null;
  }

  async update(job: VideoJob): Promise<boolean> {
    const { id, apiKeyId, ...changes } = toEntity(job);
    if (job.status !== 'in_progress') {
      const result = await this.repo.update({ id, apiKeyId }, changes);
      return (result.affected ?? 0) > 0;
    }
    // A running job, in one statement: progress and attempts only rise, a finished row stays finished.
    const result = await this.repo
      .createQueryBuilder()
      .update(VideoJobEntity)
      .set({
        ...changes,
        progress: () => 'CASE WHEN progress > :progress THEN progress ELSE :progress END',
        attempts: () => 'CASE WHEN attempts > :attempts THEN attempts ELSE :attempts END',
      })
      .where({ id, apiKeyId, status: In(['queued', 'in_progress']) })
      .setParameters({ progress: job.progress, attempts: job.attempts })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async list(apiKeyId: string, page: VideoPageRequest): Promise<VideoPage> {
    const { rows, hasMore } = await newestFirstPage(this.repo.createQueryBuilder('v'), apiKeyId, page);
    return { videos: rows.map(toJob), hasMore };
  }

  async delete(apiKeyId: string, id: string): Promise<VideoJob | null> {
    const row = await deleteOwned(this.repo, apiKeyId, id);
    return row ? toJob(row) : null;
  }

  async unfinished(): Promise<VideoJob[]> {
    const rows = await this.repo.find({ where: { status: In(['queued', 'in_progress']) }, order: { createdAt: 'ASC' } });
    return rows.map(toJob);
  }

  countUnfinished(apiKeyId: string): Promise<number> {
    return this.repo.countBy({ apiKeyId, status: In(['queued', 'in_progress']) });
  }

  async expired(now: number, limit: number): Promise<VideoJob[]> {
    const rows = await this.repo.find({
      where: { status: In(['completed', 'failed']), expiresAt: LessThanOrEqual(now) },
      order: { expiresAt: 'ASC' },
      take: limit,
    });
    return rows.map(toJob);
  }
}

function toEntity(job: VideoJob): VideoJobEntity {
  return Object.assign(new VideoJobEntity(), {
    id: job.id,
    apiKeyId: job.apiKeyId,
    model: job.model,
    status: job.status,
    progress: job.progress,
    size: job.size,
    durationMs: Math.round(job.durationSeconds * 1000),
    createdAt: job.createdAt,
    completedAt: job.completedAt,
    expiresAt: job.expiresAt,
    error: job.error,
    attempts: job.attempts,
  });
}

function toJob(row: VideoJobEntity): VideoJob {
  return {
    id: row.id,
    apiKeyId: row.apiKeyId,
    model: row.model as VideoJob['model'],
    status: row.status as VideoJob['status'],
    progress: Number(row.progress),
    size: row.size as VideoJob['size'],
    durationSeconds: toMillis(row.durationMs) / 1000,
    createdAt: toMillis(row.createdAt),
    completedAt: toNullableMillis(row.completedAt),
    expiresAt: toNullableMillis(row.expiresAt),
    error: row.error,
    attempts: Number(row.attempts),
  };
}
