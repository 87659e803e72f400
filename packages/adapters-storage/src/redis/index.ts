export { openRedis, waitForRedis } from './redis-connection.js';
export type { Redis } from './redis-connection.js';
export { RedisRateLimiter } from './redis-rate-limiter.js';
export { BullMqJobQueue, type BullMqJobQueueOptions } from './bullmq-job-queue.js';
export { RedisSessionRegistry, type RedisSessionRegistryOptions } from './redis-session-registry.js';
export { RedisQuotaGuard } from './redis-quota-guard.js';
