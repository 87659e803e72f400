import { z } from 'zod';
import type { DataSource } from 'typeorm';
import { LargeBodyLimit, ManageApiKeys, REALTIME_TOKENS, SHARED_TOKENS, sipConfigHolding } from '@svc/core';
import { openDatabase, RedisRateLimiter, TokenBucketRateLimiter, TypeOrmApiKeyRepository } from '@svc/adapters-storage';
import { healthRoutes, metricsRoute, openApiRoute, ServiceMetrics } from '@svc/adapters-http';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { SystemClock } from '../runtime/system-clock.js';
import { CryptoIdGenerator, Sha256Hasher } from '../runtime/crypto-ids.js';
import { createPinoLogger } from '../runtime/pino-logger.js';
import { servesApi } from '../runtime/process-role.js';
import { openBlobStore } from '../runtime/blob-store.js';
import { defineModule, type ModuleRoutes } from './module.js';
import { sipConfigRepository } from './sip-accounts.js';

export const SERVICE_INFO = {
  title: 'svc speech, avatar video and realtime voice service',
  version: '1.0.0',
  description: 'Self-hostable implementation of the service interface v1.0.0.',
};

/**
 * What every capability shares: the server's own settings, logging, time, ids, hashing, blobs,
 * the database, API keys, rate limiting, metrics, health and the OpenAPI document.
 */
export const foundationModule = defineModule({
  name: 'foundation',
  docs: 'README.md',
  settings: {
    SVC_PORT: setting.int(8080, 0, 65535),
    SVC_HOST: setting.string('127.0.0.1'),
    SVC_DATA_DIR: setting.string('./data'),
    SVC_DATABASE_URL: setting.url(['sqlite', 'postgres', 'postgresql'], 'sqlite:<path> or a postgres:// URL'),
    SVC_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SVC_TLS_CERT: setting.string(),
    SVC_TLS_KEY: setting.string(),
    SVC_API_KEYS: setting.list(),
    SVC_BOOTSTRAP_KEY: setting.bool(true),
    SVC_RATE_LIMIT_PER_MINUTE: setting.int(600),
    SVC_RATE_LIMIT_BURST: setting.int(100),
    SVC_MAX_JSON_BODY_BYTES: setting.int(11 * 1024 * 1024, 1024),
    // Requests over 1 MiB (inline media, uploads) and media URL downloads one key may have in progress; 0: no limit.
    SVC_MAX_LARGE_BODIES_PER_KEY: setting.int(8, 0, 10_000),
    SVC_METRICS_PUBLIC: setting.bool(false),
    SVC_SHUTDOWN_GRACE_MS: setting.int(10_000),
    SVC_REQUEST_TIMEOUT_MS: setting.int(120_000, 1_000),
  },
  check(s) {
    if (Boolean(s.SVC_TLS_CERT) !== Boolean(s.SVC_TLS_KEY)) {
      throw new Error('Invalid configuration: SVC_TLS_CERT and SVC_TLS_KEY must be set together.');
    }
  },
  bind(provide, config) {
    provide(SHARED_TOKENS.Logger, () => createPinoLogger(config.settings.SVC_LOG_LEVEL));
    provide(SHARED_TOKENS.Clock, () => new SystemClock());
    provide(SHARED_TOKENS.IdGenerator, () => new CryptoIdGenerator());
    provide(SHARED_TOKENS.Hasher, () => new Sha256Hasher());
    // Files in the data directory (or SVC_BLOB_DIR), or an S3-compatible bucket (docs/deployment.md).
    provide(SHARED_TOKENS.BlobStore, () => openBlobStore(config.settings.SVC_DATA_DIR, config.settings), {
      close: (store) => store.close?.(),
    });
    provide(SERVER_TOKENS.Metrics, () => new ServiceMetrics());
    // One count per key: the API's large request bodies (server.ts) and its media downloads (voices.ts).
    provide(SERVER_TOKENS.LargeBodies, () => new LargeBodyLimit(config.settings.SVC_MAX_LARGE_BODIES_PER_KEY));
    provide(
      SERVER_TOKENS.DataSource,
      // Migrations at start by default (one machine); a multi-process setup runs `npm run migrate` once.
      () =>
        openDatabase({
          url: config.settings.SVC_DATABASE_URL,
          dataDir: config.settings.SVC_DATA_DIR,
          migrate: config.settings.SVC_MIGRATE_ON_START,
        }),
      { close: (ds: DataSource) => ds.destroy() },
    );
    provide(SHARED_TOKENS.ApiKeyRepository, async (get) => new TypeOrmApiKeyRepository(await get(SERVER_TOKENS.DataSource)));
    // With a shared Redis the bucket holds across processes; otherwise it lives in this process.
    provide(SHARED_TOKENS.RateLimiter, async (get) => {
      const { client } = await get(SERVER_TOKENS.SharedRedis);
      const clock = await get(SHARED_TOKENS.Clock);
      const { SVC_RATE_LIMIT_PER_MINUTE: perMinute, SVC_RATE_LIMIT_BURST: burst } = config.settings;
      return client
        ? new RedisRateLimiter(client, clock, perMinute, burst, `${config.settings.SVC_REDIS_KEY_PREFIX}rl:`)
        : new TokenBucketRateLimiter(clock, perMinute, burst);
    });
    provide(
      SERVER_TOKENS.ManageApiKeys,
      async (get) =>
        new ManageApiKeys(
          await get(SHARED_TOKENS.ApiKeyRepository),
          await get(SHARED_TOKENS.IdGenerator),
          await get(SHARED_TOKENS.Hasher),
          await get(SHARED_TOKENS.Clock),
          config.settings.SVC_API_KEYS,
          // What a key stored for SIP goes with it when it is revoked, from whichever process revokes
          // it: here, because the keys CLI binds only this module, and whether or not SVC_SIP_PORT is
          // set (the table exists in every database; deleting a row opens no sealed secret).
          [
            sipConfigHolding(
              sipConfigRepository(await get(SERVER_TOKENS.DataSource), config.settings.SVC_SIP_CONFIG_KEY, config.settings.SVC_DATA_DIR),
            ),
          ],
        ),
    );
  },
  routes({ config, get }): ModuleRoutes {
    // Typed locals: Settings is built from the modules' types, so nothing here may need it to be inferred.
    const metricsPublic: boolean = config.settings.SVC_METRICS_PUBLIC;
    const api: boolean = servesApi(config);
    const dataSource = get(SERVER_TOKENS.DataSource);
    const redis = get(SERVER_TOKENS.SharedRedis);
    // The probe looks at the configured store itself, not through the (overridable) BlobStore port.
    const blobs = openBlobStore(config.settings.SVC_DATA_DIR, config.settings);
    const observability = metricsRoute(get(SERVER_TOKENS.Metrics));
    return {
      public: [
        healthRoutes(
          [
            { name: 'database', check: async () => void (await dataSource.query('SELECT 1')) },
            ...(redis.client ? [{ name: 'redis', check: () => redis.ping() }] : []),
            { name: 'blob_store', check: () => blobs.checkWritable() },
          ],
          () => {
            // Degraded, not unready: without a recognizer, audio turns get a transcription_unavailable error.
            // (A server built without the realtime-audio module has no such status.)
            let detail: string | undefined;
            try {
              detail = get(REALTIME_TOKENS.SpeechRecognitionStatus).detail;
            } catch {
              detail = undefined;
            }
            const details: Record<string, string> = {};
            if (detail !== undefined) details.speech_recognition = detail;
            return details;
          },
        ),
        ...(metricsPublic ? [observability] : []),
      ],
      authenticated: [...(api ? [openApiRoute(SERVICE_INFO)] : []), ...(metricsPublic ? [] : [observability])],
    };
  },
});
