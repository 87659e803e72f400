import { InvalidRequestError, type SipConfigRepository, type SipKeyConfig } from '@svc/core';
import type { DataSource, Repository } from 'typeorm';
import { toMillis } from '../columns.js';
import { SipConfigEntity } from './sip-config.entity.js';
import type { SecretSealer } from './secret-box.js';

/** The per-key SIP settings in the service's database; the webhook secret is sealed before it is written. */
export class TypeOrmSipConfigRepository implements SipConfigRepository {
  private readonly repo: Repository<SipConfigEntity>;

  constructor(
    dataSource: DataSource,
    private readonly box: SecretSealer,
  ) {
    this.repo = dataSource.getRepository(SipConfigEntity);
  }

  async get(apiKeyId: string): Promise<SipKeyConfig | null> {
    const row = await this.repo.findOneBy({ apiKeyId });
    return row ? this.toConfig(row) : null;
  }

  async findByUsername(username: string): Promise<SipKeyConfig | null> {
    const row = await this.repo.findOneBy({ username });
    return row ? this.toConfig(row) : null;
  }

  async save(config: SipKeyConfig): Promise<void> {
    await this.write(config).catch((err: unknown) => {
      // two keys claiming one name at the same moment: both passed the use case's check, the index stops the second
      if (isUniqueViolation(err)) throw new InvalidRequestError(`The user name '${config.username}' is taken.`, 'username');
      throw err;
    });
  }

  private async write(config: SipKeyConfig): Promise<void> {
    await this.repo.save({
      apiKeyId: config.apiKeyId,
      username: config.username,
      ha1: config.ha1,
      webhookUrl: config.webhookUrl,
      webhookSecretSealed: config.webhookSecret === null ? null : this.box.seal(config.webhookSecret),
      sessionJson: config.session === null ? null : JSON.stringify(config.session),
      createdAt: config.createdAt,
      updatedAt: config.updatedAt,
    });
  }

  async delete(apiKeyId: string): Promise<boolean> {
    return ((await this.repo.delete({ apiKeyId })).affected ?? 0) > 0;
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  private toConfig(row: SipConfigEntity): SipKeyConfig {
    return {
      apiKeyId: row.apiKeyId,
      username: row.username,
      ha1: row.ha1,
      webhookUrl: row.webhookUrl,
      webhookSecret: row.webhookSecretSealed === null ? null : this.box.open(row.webhookSecretSealed),
      session: row.sessionJson === null ? null : (JSON.parse(row.sessionJson) as Record<string, unknown>),
      createdAt: toMillis(row.createdAt),
      updatedAt: toMillis(row.updatedAt),
    };
  }
}

/** SQLite's and PostgreSQL's unique-index violations, as TypeORM passes them on (the driver's error inside). */
function isUniqueViolation(err: unknown): boolean {
  const driver = (err as { driverError?: { code?: string; message?: string } }).driverError;
  return driver?.code === '23505' || (driver?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/.test(driver.message ?? ''));
}
