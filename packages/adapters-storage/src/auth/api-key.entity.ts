import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Index({ unique: true })
  @Column({ name: 'secret_hash', type: 'varchar', length: 64 })
  secretHash!: string;

  @Column({ type: 'varchar', length: 32 })
  prefix!: string;

  // Milliseconds since epoch; bigint comes back as a string from Postgres, so the repository converts.
  @Column({ name: 'created_at', type: 'bigint' })
  createdAt!: string | number;

  @Column({ name: 'revoked_at', type: 'bigint', nullable: true })
  revokedAt!: string | number | null;
}
