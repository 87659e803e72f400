import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { SharedRedis } from '../runtime/shared-redis.js';
import { defineModule } from './module.js';

/**
 * What several processes share beyond the database: a Redis (SVC_REDIS_URL) for the rate limit
 * and, as they land, the realtime registry and the video queue. Unset: everything stays in process.
 */
export const scaleModule = defineModule({
  name: 'scale',
  docs: 'docs/deployment.md',
  settings: {
    SVC_REDIS_URL: setting.string(),
    SVC_REDIS_KEY_PREFIX: setting.string('svc:'),
    /** Lifetime of a realtime session's slot in the shared registry; renewed every third of it by the live process. */
    SVC_REALTIME_LEASE_MS: setting.int(15_000, 300, 600_000),
  },
  bind(provide, config) {
    provide(SERVER_TOKENS.SharedRedis, () => new SharedRedis(config.settings.SVC_REDIS_URL), { close: (r: SharedRedis) => r.close() });
  },
});
