import type { QuotaGuard } from '@svc/core';
import type { Redis } from 'ioredis';
import type { QuotaBudgets } from '../realtime/in-memory-quota-guard.js';
import { unavailable } from '../unavailable.js';
import { redisScript, type RedisScript } from './redis-script.js';

/**
 * Takes `units` from a key's budget only if they fit. KEYS[1] = the key's usage counter; ARGV =
 * budget, units. Returns the usage after the take, or -1 when refused.
 */
const CONSUME_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local units = tonumber(ARGV[2])
if used + units > tonumber(ARGV[1]) then return -1 end
return redis.call('INCRBY', KEYS[1], units)
`;

/**
 * The realtime quota (SVC_REALTIME_QUOTA) of InMemoryQuotaGuard, counted in Redis so every process
 * draws from one budget per key. Usage lives as long as the Redis data (not per process): a budget
 * is refilled by deleting `<prefix>quota:<api key id>`. Redis unreachable: ServiceUnavailableError.
 */
export class RedisQuotaGuard implements QuotaGuard {
  private readonly consumeScript: RedisScript;

  constructor(
    private readonly redis: Redis,
    private readonly budgets: QuotaBudgets,
    private readonly keyPrefix: string,
  ) {
    this.consumeScript = redisScript(redis, 'svcConsumeQuota', 1, CONSUME_SCRIPT);
  }

  async consume(apiKeyId: string, _resource: string, units: number): Promise<{ allowed: boolean; message?: string }> {
    const budget = this.budgets.perKey.get(apiKeyId) ?? this.budgets.defaultBudget;
    if (budget === null) return { allowed: true };
    let after: number;
    try {
      after = Number(await this.consumeScript.run([`${this.keyPrefix}${apiKeyId}`], [String(budget), String(units)]));
    } catch (err) {
      throw unavailable(err);
    }
    if (after < 0) return { allowed: false, message: `Quota exhausted: this API key's budget of ${budget} units is used up.` };
    return { allowed: true };
  }

  /** Units consumed so far by a key (all processes). */
  async usage(apiKeyId: string): Promise<number> {
    return Number((await this.redis.get(`${this.keyPrefix}${apiKeyId}`)) ?? 0);
  }
}
