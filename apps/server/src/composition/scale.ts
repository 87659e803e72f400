import { z } from 'zod';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { SharedRedis } from '../runtime/shared-redis.js';
import { jobQueueKind, PROCESS_ROLES } from '../runtime/process-role.js';
import { defineModule } from './module.js';

/**
 * What several processes share beyond the database: a Redis (SVC_REDIS_URL) for the rate limit,
 * the realtime registry and the video job queue; and what each process is (SVC_ROLE: api, worker
 * or both). Unset: everything stays in process, one process does everything.
 */
export const scaleModule = defineModule({
  name: 'scale',
  docs: 'docs/deployment.md',
  settings: {
    SVC_REDIS_URL: setting.url(['redis', 'rediss'], 'a redis:// or rediss:// URL'),
    SVC_REDIS_KEY_PREFIX: setting.string('svc:'),
    SVC_ROLE: z.enum(PROCESS_ROLES).default('both'),
    SVC_JOB_QUEUE: z.enum(['', 'memory', 'redis']).default(''),
    SVC_JOB_LOCK_MS: setting.int(30_000, 1_000, 600_000),
    SVC_MIGRATE_ON_START: setting.bool(true),
    SVC_BLOB_STORE: z.enum(['fs', 's3']).default('fs'),
    SVC_BLOB_DIR: setting.string(),
    SVC_S3_BUCKET: setting.string(),
    SVC_S3_ENDPOINT: setting.url(['http', 'https'], 'an http(s) URL'),
    SVC_S3_REGION: setting.string('us-east-1'),
    SVC_S3_ACCESS_KEY_ID: setting.string(),
    SVC_S3_SECRET_ACCESS_KEY: setting.string(),
    SVC_S3_FORCE_PATH_STYLE: setting.bool(true),
    SVC_S3_KEY_PREFIX: setting.string(),
    SVC_BLOB_ORPHAN_GRACE_HOURS: setting.int(24, 0, 24 * 365),
    /** Lifetime of a realtime session's slot in the shared registry; renewed every third of it by the live process. */
    SVC_REALTIME_LEASE_MS: setting.int(15_000, 300, 600_000),
  },
  check(s) {
    if (s.SVC_BLOB_STORE === 's3' && !s.SVC_S3_BUCKET) throw new Error('Invalid configuration: SVC_BLOB_STORE=s3 needs SVC_S3_BUCKET.');
    if (Boolean(s.SVC_S3_ACCESS_KEY_ID) !== Boolean(s.SVC_S3_SECRET_ACCESS_KEY)) {
      throw new Error('Invalid configuration: SVC_S3_ACCESS_KEY_ID and SVC_S3_SECRET_ACCESS_KEY must be set together.');
    }
    const queue = jobQueueKind(s);
    if (queue === 'redis' && !s.SVC_REDIS_URL) throw new Error('Invalid configuration: SVC_JOB_QUEUE=redis needs SVC_REDIS_URL.');
    if (s.SVC_ROLE !== 'both' && queue !== 'redis') {
      throw new Error(
        `Invalid configuration: SVC_ROLE=${s.SVC_ROLE} needs the shared job queue (set SVC_REDIS_URL; SVC_JOB_QUEUE must not be memory).`,
      );
    }
  },
  bind(provide, config) {
    provide(SERVER_TOKENS.SharedRedis, () => new SharedRedis(config.settings.SVC_REDIS_URL), { close: (r: SharedRedis) => r.close() });
  },
});
