import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One API key's SIP settings: the digest HA1 (never the password) and the webhook secret sealed with AES-256-GCM. */
@Entity({ name: 'sip_configs' })
export class SipConfigEntity {
  @PrimaryColumn({ name: 'api_key_id', type: 'varchar', length: 64 })
  apiKeyId!: string;

  @Index({ unique: true })
  @Column({ type: 'varchar', length: 64 })
  username!: string;

  @Column({ type: 'varchar', length: 32 })
  ha1!: string;

  @Column({ name: 'webhook_url', type: 'varchar', length: 2048, nullable: true })
  webhookUrl!: string | null;

  /** `v1.<iv>.<tag>.<ciphertext>` in base64 (secret-box.ts); null without a webhook. */
  @Column({ name: 'webhook_secret_sealed', type: 'varchar', length: 512, nullable: true })
  webhookSecretSealed!: string | null;

  /** JSON of session.update's `session`, or null. */
  @Column({ name: 'session_json', type: 'text', nullable: true })
  sessionJson!: string | null;

  // Milliseconds since epoch; bigint comes back as a string from Postgres, so the repository converts.
  @Column({ name: 'created_at', type: 'bigint' })
  createdAt!: string | number;

  @Column({ name: 'updated_at', type: 'bigint' })
  updatedAt!: string | number;
}
