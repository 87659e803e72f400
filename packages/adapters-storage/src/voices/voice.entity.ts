import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A registered voice. The key is (api_key_id, id): the same audio under two keys is two voices,
 * each visible to its own key only.
 */
@Entity({ name: 'voices' })
@Index('idx_voices_key_created', ['apiKeyId', 'createdAt'])
export class VoiceEntity {
  @PrimaryColumn({ name: 'api_key_id', type: 'varchar', length: 64 })
  apiKeyId!: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'ref_text', type: 'text' })
  refText!: string;

  @Column({ type: 'text' })
  description!: string;

  // Milliseconds since epoch; bigint comes back as a string from Postgres, so the repository converts.
  @Column({ name: 'created_at', type: 'bigint' })
  createdAt!: string | number;

  @Column({ name: 'audio_key', type: 'varchar', length: 255 })
  audioKey!: string;

  @Column({ name: 'audio_format', type: 'varchar', length: 16 })
  audioFormat!: string;

  @Column({ name: 'audio_bytes', type: 'bigint' })
  audioBytes!: string | number;

  @Column({ name: 'duration_ms', type: 'bigint' })
  durationMs!: string | number;

  /** The measured VoiceProfile as JSON (text, so SQLite and Postgres store it the same way). */
  @Column({ type: 'text' })
  profile!: string;
}
