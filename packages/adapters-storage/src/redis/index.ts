export { openRedis, waitForRedis } from './redis-connection.js';
export type { Redis } from './redis-connection.js';
export { RedisRateLimiter } from './redis-rate-limiter.js';
