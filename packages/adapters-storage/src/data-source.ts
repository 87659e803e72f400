import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { PRIVATE_FOLDER } from './private-folder.js';
import { DataSource, MigrationExecutor, type DataSourceOptions, type MixedList, type EntitySchema } from 'typeorm';
import { ApiKeyEntity, CreateApiKeysTable1763700000000 } from './auth/index.js';
import { ClientSecretEntity, CreateRealtimeClientSecretsTable1763800000000 } from './realtime/index.js';
import { CreateVoicesTable1763700000300, VoiceEntity } from './voices/index.js';
import { CreateVideoJobsTable1763900000000, VideoJobEntity } from './video/index.js';
import { CreateSipConfigsTable1764400000000, SipConfigEntity } from './sip/index.js';

// TypeORM takes entity classes and migration classes alike.
type Constructor = Function;

/** Every entity and migration of the service; capability modules add theirs here. */
export const ENTITIES: Constructor[] = [ApiKeyEntity, VoiceEntity, ClientSecretEntity, VideoJobEntity, SipConfigEntity];
export const MIGRATIONS: Constructor[] = [
  CreateApiKeysTable1763700000000,
  CreateVoicesTable1763700000300,
  CreateRealtimeClientSecretsTable1763800000000,
  CreateVideoJobsTable1763900000000,
  CreateSipConfigsTable1764400000000,
];

/** How long a request waits for a Postgres connection, then for a query, before it fails (503). */
export const POSTGRES_CONNECT_TIMEOUT_MS = 3_000;
export const POSTGRES_QUERY_TIMEOUT_MS = 15_000;

export interface DatabaseConfig {
  /**
   * `sqlite:<path>` (relative paths resolve inside dataDir), `sqlite::memory:`, or a
   * `postgres://user:pass@host:port/db` URL. Empty: `sqlite:svc.sqlite` in dataDir.
   */
  url?: string;
  dataDir: string;
  logging?: boolean;
  entities?: Constructor[];
  migrations?: Constructor[];
}

/**
 * SQLite by default (one file in the data directory), Postgres when a postgres URL is configured.
 * The schema comes from migrations (never `synchronize`), so the same tables exist on both.
 */
export function createDataSource(config: DatabaseConfig): DataSource {
  const url = config.url?.trim() || 'sqlite:svc.sqlite';
  const entities = (config.entities ?? ENTITIES) as MixedList<Constructor | string | EntitySchema>;
  const migrations = (config.migrations ?? MIGRATIONS) as MixedList<Constructor | string>;
  const common = { entities, migrations, migrationsRun: false, synchronize: false, logging: config.logging ?? false };
  let options: DataSourceOptions;
  if (/^postgres(ql)?:\/\//.test(url)) {
    // Bounded waits: while Postgres is down or restarting a request fails within seconds (503)
    // instead of queueing forever for a pool connection (pg's default connection timeout is none).
    options = {
      type: 'postgres',
      url,
      ...common,
      connectTimeoutMS: POSTGRES_CONNECT_TIMEOUT_MS,
      extra: {
        connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
        query_timeout: POSTGRES_QUERY_TIMEOUT_MS,
        statement_timeout: POSTGRES_QUERY_TIMEOUT_MS,
      },
    };
  } else if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    const database = path === ':memory:' ? ':memory:' : isAbsolute(path) ? path : join(config.dataDir, path);
    if (database !== ':memory:') mkdirSync(dirname(database), { recursive: true, mode: PRIVATE_FOLDER });
    options = { type: 'sqlite', database, enableWAL: database !== ':memory:', busyErrorRetry: 50, ...common };
  } else {
    throw new Error(`Unsupported SVC_DATABASE_URL '${url}': use sqlite:<path> or postgres://...`);
  }
  return new DataSource(options);
}

/** The schema is older than this code and the process was told not to migrate it. */
export class SchemaBehindError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `The database schema is behind this version (${pending.length} migration(s) pending: ${pending.join(', ')}). ` +
        'Run `npm run migrate` (same SVC_DATABASE_URL) first, or start one process with SVC_MIGRATE_ON_START=true.',
    );
  }
}

/** Any number that names the service's migration lock among a database's advisory locks. */
const MIGRATION_LOCK = 7_351_020_113;

/**
 * Opens the database and brings its schema up to date (`migrate`, the default), or, with
 * `migrate: false`, checks that it is and throws SchemaBehindError otherwise. On Postgres the
 * migrations run under an advisory lock, so processes starting together migrate one after the
 * other (the later ones find nothing to do) instead of racing.
 */
export async function openDatabase(config: DatabaseConfig & { migrate?: boolean }): Promise<DataSource> {
  const dataSource = createDataSource(config);
  await dataSource.initialize();
  try {
    if (config.migrate === false) {
      const pending = await pendingMigrations(dataSource);
      if (pending.length > 0) throw new SchemaBehindError(pending);
    } else {
      await migrate(dataSource);
    }
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw err;
  }
  return dataSource;
}

/** Runs what is pending (serialized across processes on Postgres); resolves the names applied. */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  if (dataSource.options.type !== 'postgres') return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  const lock = dataSource.createQueryRunner();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
  }
}

/** Names of the migrations this code has and the database has not run yet. */
export async function pendingMigrations(dataSource: DataSource): Promise<string[]> {
  return (await new MigrationExecutor(dataSource).getPendingMigrations()).map((m) => m.name);
}
