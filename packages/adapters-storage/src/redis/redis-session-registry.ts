import { randomUUID } from 'node:crypto';
import { type AdmissionDecision, type Logger, type RealtimeSessionRegistry, type SessionCaps, type SessionClaim } from '@svc/core';
import type { Redis } from 'ioredis';
import { unavailable } from '../unavailable.js';
import { LUA_SERVER_NOW_MS, redisScript, type RedisScript } from './redis-script.js';

/**
 * Admission in one step on the Redis server. KEYS: the sorted set of every live lease, the key's
 * sorted set, the ephemeral key's holder ("<lease id>|<expiry ms>"). ARGV: lease ms, max sessions,
 * max per key, lease id, '1' when the session has an ephemeral key. Leases are scored by their expiry
 * on the Redis server's clock (TIME), so processes whose clocks disagree still agree on which leases
 * are alive: expired ones (of a process that stopped renewing) are dropped before counting.
 */
const ADMIT_SCRIPT = `
${LUA_SERVER_NOW_MS}
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if ARGV[5] == '1' then
  local holder = redis.call('GET', KEYS[3])
  if holder and tonumber(string.match(holder, '|(%d+)$')) > now then return 'duplicate_session' end
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) or redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'at_capacity' end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[4])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
if ARGV[5] == '1' then redis.call('SET', KEYS[3], ARGV[4] .. '|' .. (now + ttl), 'PX', ttl + 1000) end
return 'admitted'
`;

/**
 * Keeps a live lease alive (same KEYS; ARGV: lease ms, lease id, has-secret), on the server's clock.
 * It re-adds a lease that expired while Redis was unreachable: the session is still open, so it
 * still counts.
 */
const RENEW_SCRIPT = `
${LUA_SERVER_NOW_MS}
local expires = now + tonumber(ARGV[1])
local mine = ARGV[2] .. '|'
redis.call('ZADD', KEYS[1], expires, ARGV[2])
redis.call('ZADD', KEYS[2], expires, ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
if ARGV[3] == '1' then
  local holder = redis.call('GET', KEYS[3])
  if holder == false or string.sub(holder, 1, #mine) == mine or tonumber(string.match(holder, '|(%d+)$')) <= now then
    redis.call('SET', KEYS[3], mine .. expires, 'PX', tonumber(ARGV[1]) + 1000)
  end
end
return 1
`;

/** Frees a lease (same KEYS; ARGV: lease id). The ephemeral key is freed only by its own holder. */
const RELEASE_SCRIPT = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
local holder = redis.call('GET', KEYS[3])
if holder and string.sub(holder, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then redis.call('DEL', KEYS[3]) end
return 1
`;

export interface RedisSessionRegistryOptions extends SessionCaps {
  /** How long a lease lives without renewal: a dead process's slots are free again after at most this. */
  leaseMs: number;
  /** Key prefix (SVC_REDIS_KEY_PREFIX + 'rt:'). */
  keyPrefix: string;
}

interface HeldLease {
  keys: [string, string, string];
  hasSecret: string;
}

/**
 * The realtime admission rules (caps, one session per ephemeral key) for every process sharing a
 * Redis. Each admitted session holds a lease that this process renews every leaseMs/3; a process
 * killed with -9 stops renewing and its slots free themselves within leaseMs (of the Redis server's
 * clock: the processes' own clocks play no part). The three scripts run by EVALSHA. Redis unreachable:
 * admit rejects with ServiceUnavailableError (the gateway refuses with 1013); open sessions go on and
 * their leases are renewed (re-added) once Redis answers again.
 */
export class RedisSessionRegistry implements RealtimeSessionRegistry {
  private readonly held = new Map<string, HeldLease>();
  private readonly renewer: NodeJS.Timeout;
  private renewing = false;
  private readonly scripts: { admit: RedisScript; renew: RedisScript; release: RedisScript };

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisSessionRegistryOptions,
    private readonly logger?: Logger,
  ) {
    this.scripts = {
      admit: redisScript(redis, 'svcAdmitSession', 3, ADMIT_SCRIPT),
      renew: redisScript(redis, 'svcRenewSessionLease', 3, RENEW_SCRIPT),
      release: redisScript(redis, 'svcReleaseSessionLease', 3, RELEASE_SCRIPT),
    };
    this.renewer = setInterval(() => void this.renewAll(), Math.max(50, Math.floor(options.leaseMs / 3)));
    this.renewer.unref();
  }

  async admit(claim: SessionClaim): Promise<AdmissionDecision> {
    const leaseId = randomUUID();
    const p = this.options.keyPrefix;
    const keys: HeldLease['keys'] = [`${p}all`, `${p}key:${claim.apiKeyId}`, `${p}secret:${claim.secretSessionId ?? ''}`];
    const hasSecret = claim.secretSessionId ? '1' : '0';
    let outcome: string;
    try {
      const { leaseMs, maxSessions, maxSessionsPerKey } = this.options;
      outcome = (await this.scripts.admit.run(keys, [
        String(leaseMs),
        String(maxSessions),
        String(maxSessionsPerKey),
        leaseId,
        hasSecret,
      ])) as string;
    } catch (err) {
      throw unavailable(err);
    }
    if (outcome === 'duplicate_session' || outcome === 'at_capacity') return { admitted: false, refusal: outcome };
    this.held.set(leaseId, { keys, hasSecret });
    return {
      admitted: true,
      lease: {
        release: async () => {
          // Forgotten first: even if Redis does not answer now, the lease is no longer renewed and expires.
          if (!this.held.delete(leaseId)) return;
          try {
            await this.scripts.release.run(keys, [leaseId]);
          } catch (err) {
            throw unavailable(err);
          }
        },
      },
    };
  }

  localSessions(): number {
    return this.held.size;
  }

  async close(): Promise<void> {
    clearInterval(this.renewer);
  }

  /** One renewal round for every lease this process holds (skipped while the previous one runs). */
  async renewAll(): Promise<void> {
    if (this.renewing || this.held.size === 0) return;
    this.renewing = true;
    try {
      const ttl = String(this.options.leaseMs);
      const pipeline = this.redis.pipeline();
      for (const [leaseId, lease] of this.held) this.scripts.renew.queue(pipeline, lease.keys, [ttl, leaseId, lease.hasSecret]);
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([err]) => err);
      if (failed) throw failed[0];
    } catch (err) {
      this.logger?.warn({ err: String(err), leases: this.held.size }, 'could not renew realtime session leases; retrying');
    } finally {
      this.renewing = false;
    }
  }
}
