export { openRedis, waitForRedis } from './redis-connection.js';
export type { Redis } from './redis-connection.js';
export { RedisRateLimiter } from './redis-rate-limiter.js';
export { BullMqJobQueue, type BullMqJobQueueOptions } from './bullmq-job-queue.js';
