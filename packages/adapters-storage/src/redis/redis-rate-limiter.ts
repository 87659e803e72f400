import type { Clock, RateLimitDecision, RateLimiter } from '@svc/core';
import type { Redis } from 'ioredis';
import { unavailable } from '../unavailable.js';
import { redisScript, type RedisScript } from './redis-script.js';

/**
 * The token bucket of TokenBucketRateLimiter, kept in Redis and updated by one Lua script (atomic on the
 * server, run by EVALSHA), so every process sharing the Redis shares the bucket. KEYS[1] = bucket hash; ARGV = now (ms),
 * capacity, refill per ms, cost. Returns {allowed (0/1), retry-after in ms as a string (Lua numbers
 * returned as integers would truncate)}. The hash expires once it would be full again anyway.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens = tonumber(state[1]) or capacity
local updated = tonumber(state[2]) or now
if now > updated then tokens = math.min(capacity, tokens + (now - updated) * rate) else now = updated end
local allowed = 0
local retry = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry = (cost - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate) + 1000)
return {allowed, tostring(retry)}
`;

export class RedisRateLimiter implements RateLimiter {
  private readonly refillPerMs: number;
  private readonly takeScript: RedisScript;

  /**
   * `clock` supplies "now": processes on one machine share it; across machines keep clocks in sync (NTP),
   * a skew only shifts refills by that much (the script never moves a bucket's time backwards).
   */
  constructor(
    redis: Redis,
    private readonly clock: Clock,
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly keyPrefix = 'svc:rl:',
  ) {
    this.refillPerMs = perMinute / 60_000;
    this.takeScript = redisScript(redis, 'svcTakeRateLimitToken', 1, TAKE_SCRIPT);
  }

  async take(key: string, cost = 1): Promise<RateLimitDecision> {
    if (this.perMinute <= 0) return { allowed: true, retryAfterSeconds: 0 };
    const capacity = Math.max(1, this.burst);
    let reply: [number, string];
    try {
      reply = (await this.takeScript.run(
        [this.keyPrefix + key],
        [String(this.clock.now()), String(capacity), String(this.refillPerMs), String(cost)],
      )) as [number, string];
    } catch (err) {
      throw unavailable(err); // a clean 503, not a 500
    }
    const [allowed, retryMs] = reply;
    return allowed === 1 ? { allowed: true, retryAfterSeconds: 0 } : { allowed: false, retryAfterSeconds: Number(retryMs) / 1000 };
  }
}
