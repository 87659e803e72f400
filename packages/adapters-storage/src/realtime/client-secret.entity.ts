import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An ephemeral realtime key: only the SHA-256 digest of the secret is stored. */
@Entity({ name: 'realtime_client_secrets' })
export class ClientSecretEntity {
  /** The session id announced at minting (`sess_...`). */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Index({ unique: true })
  @Column({ name: 'secret_hash', type: 'varchar', length: 64 })
  secretHash!: string;

  @Column({ name: 'api_key_id', type: 'varchar', length: 64 })
  apiKeyId!: string;

  @Column({ name: 'api_key_name', type: 'varchar', length: 200 })
  apiKeyName!: string;

  // Milliseconds since epoch; bigint comes back as a string from Postgres, so the repository converts.
  @Column({ name: 'created_at', type: 'bigint' })
  createdAt!: string | number;

  @Index()
  @Column({ name: 'expires_at', type: 'bigint' })
  expiresAt!: string | number;
}
