import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

/**
 * ioredis, loaded when the first client is made: a process without SVC_REDIS_URL never loads it
 * (nor BullMQ), which keeps their JavaScript out of its memory (docs/deployment.md, Memory and warm-up).
 */
export function ioredis(): typeof import('ioredis') {
  return createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
}

/** A command of the shared client that has no answer by then fails (503 / 1013 "retry later"). */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/**
 * One ioredis client for the shared stores. Commands fail fast while Redis is unreachable
 * (no offline queue, one retry per request) so a request gets a clean error instead of hanging,
 * and the client keeps reconnecting in the background so the process recovers without a restart.
 * A Redis that is connected but does not answer (paused, swapping, a host gone behind a network that
 * drops packets: no reset ever comes) fails each command after REDIS_COMMAND_TIMEOUT_MS; the client
 * runs only short commands and scripts (never a blocking one: BullMQ has connections of its own).
 */
export function openRedis(url: string): Redis {
  const redis = new (ioredis().Redis)(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // A Redis that is down surfaces in the commands that fail and in /readyz; without a listener
  // ioredis prints "Unhandled error event" and a stack to stderr at every reconnection attempt.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves once the client is connected (rejects after `timeoutMs`). */
export async function waitForRedis(redis: Redis, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`Redis not reachable within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', onReady);
  });
}

export type { Redis };
