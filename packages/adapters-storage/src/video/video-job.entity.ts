import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A video job. The id is globally unique (the worker reads jobs by id alone); every query on behalf
 * of a caller also filters on api_key_id.
 */
@Entity({ name: 'video_jobs' })
@Index('idx_video_jobs_key_created', ['apiKeyId', 'createdAt'])
@Index('idx_video_jobs_status', ['status'])
@Index('idx_video_jobs_expires', ['expiresAt'])
export class VideoJobEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'api_key_id', type: 'varchar', length: 64 })
  apiKeyId!: string;

  @Column({ type: 'varchar', length: 32 })
  model!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: string;

  @Column({ type: 'integer' })
  progress!: number;

  @Column({ type: 'varchar', length: 16 })
  size!: string;

  @Column({ name: 'duration_ms', type: 'bigint' })
  durationMs!: string | number;

  // Milliseconds since epoch; bigint comes back as a string from Postgres, so the repository converts.
  @Column({ name: 'created_at', type: 'bigint' })
  createdAt!: string | number;

  @Column({ name: 'completed_at', type: 'bigint', nullable: true })
  completedAt!: string | number | null;

  @Column({ name: 'expires_at', type: 'bigint', nullable: true })
  expiresAt!: string | number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'integer' })
  attempts!: number;
}
