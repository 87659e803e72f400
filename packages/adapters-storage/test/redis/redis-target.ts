import { randomUUID } from 'node:crypto';
import { openRedis, waitForRedis, type Redis } from '../../src/redis/redis-connection.js';

/** The shared test Redis (scripts/start-redis.sh; .ci/run sets it). Undefined: the Redis suites are pending. */
export const testRedisUrl = process.env.SVC_TEST_REDIS_URL;

/**
 * `describe` for suites that need a real Redis: runs when SVC_TEST_REDIS_URL is set, otherwise shows as
 * pending with the reason in its title.
 */
export function describeWithRedis(title: string, body: () => void): void {
  if (testRedisUrl) describe(`${title} (Redis)`, body);
  else describe.skip(`${title} (Redis: pending, set SVC_TEST_REDIS_URL=$(bash scripts/start-redis.sh) to run)`, body);
}

/** A connected client plus a key prefix unique to this test run, so suites never see each other's keys. */
export async function connectTestRedis(): Promise<{ redis: Redis; prefix: string; close(): Promise<void> }> {
  const redis = openRedis(testRedisUrl!);
  await waitForRedis(redis);
  const prefix = `svc-test:${randomUUID()}:`;
  return {
    redis,
    prefix,
    async close() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
