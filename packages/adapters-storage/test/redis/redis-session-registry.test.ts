import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { ServiceUnavailableError, type Clock } from '@svc/core';
import { openRedis, waitForRedis } from '../../src/redis/redis-connection.js';
import { RedisSessionRegistry } from '../../src/redis/redis-session-registry.js';
import { RedisQuotaGuard } from '../../src/redis/redis-quota-guard.js';
import { parseQuotaBudgets } from '../../src/realtime/in-memory-quota-guard.js';
import { leaseOf, sessionRegistryContract } from '../session-registry-contract.js';
import { manualClock } from '../rate-limiter-contract.js';
import { connectTestRedis, describeWithRedis } from './redis-target.js';

const systemClock: Clock = { now: () => Date.now(), setTimer: (ms, fn) => { const t = setTimeout(fn, ms); return () => clearTimeout(t); } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeWithRedis('RedisSessionRegistry and RedisQuotaGuard', () => {
  let conn: Awaited<ReturnType<typeof connectTestRedis>>;
  let second: Awaited<ReturnType<typeof connectTestRedis>>;
  const registries: RedisSessionRegistry[] = [];
  before(async () => {
    conn = await connectTestRedis();
    second = await connectTestRedis();
  });
  after(async () => {
    for (const r of registries) await r.close();
    await conn.close();
    await second.close();
  });
  let run = 0;
  const pair = (caps: { maxSessions: number; maxSessionsPerKey: number }, leaseMs = 15_000, clock: Clock = systemClock) => {
    const keyPrefix = `${conn.prefix}rt${run++}:`;
    const made: [RedisSessionRegistry, RedisSessionRegistry] = [
      new RedisSessionRegistry(conn.redis, clock, { ...caps, leaseMs, keyPrefix }),
      new RedisSessionRegistry(second.redis, clock, { ...caps, leaseMs, keyPrefix }),
    ];
    registries.push(...made);
    return made;
  };

  describe('contract (two clients: two processes)', () => {
    sessionRegistryContract(async (caps) => pair(caps));
  });

  it('a lease no one renews (its process was killed) frees its slot after leaseMs; a renewed one stays', async () => {
    const clock = manualClock(Date.now());
    const [dead, live] = pair({ maxSessions: 2, maxSessionsPerKey: 2 }, 60_000, clock);
    await dead.close(); // stops renewing, as a killed process does
    await live.close(); // renewed by hand below, on the manual clock
    leaseOf(await dead.admit({ apiKeyId: 'k', secretSessionId: 'sess_dead' }));
    leaseOf(await live.admit({ apiKeyId: 'k', secretSessionId: null }));
    expect((await live.admit({ apiKeyId: 'k', secretSessionId: null })).admitted).to.equal(false);
    clock.advance(40_000);
    await live.renewAll();
    clock.advance(30_000); // 70 s after admission: the dead lease (60 s) is gone, the renewed one is not
    expect((await live.admit({ apiKeyId: 'k', secretSessionId: 'sess_dead' })).admitted, 'the dead session slot and its ephemeral key are free').to.equal(true);
    expect((await live.admit({ apiKeyId: 'k', secretSessionId: null })).admitted, 'the renewed lease still counts').to.equal(false);
  });

  it('renews leases in the background on the real clock', async () => {
    const [a, b] = pair({ maxSessions: 1, maxSessionsPerKey: 1 }, 600);
    leaseOf(await a.admit({ apiKeyId: 'k', secretSessionId: null }));
    await sleep(1500); // 2.5 lease lifetimes: only renewal keeps it
    expect((await b.admit({ apiKeyId: 'k', secretSessionId: null })).admitted).to.equal(false);
    await a.close(); // now nobody renews
    await sleep(900);
    expect((await b.admit({ apiKeyId: 'k', secretSessionId: null })).admitted).to.equal(true);
  });

  it('the quota is one budget per key across processes', async () => {
    const budgets = parseQuotaBudgets('key_small=3,*=100');
    const prefix = `${conn.prefix}quota:`;
    const a = new RedisQuotaGuard(conn.redis, budgets, prefix);
    const b = new RedisQuotaGuard(second.redis, budgets, prefix);
    const takes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).consume('key_small', 'realtime.response', 1)));
    expect(takes.filter((t) => t.allowed)).to.have.length(3);
    const refused = takes.find((t) => !t.allowed)!;
    expect(refused.message).to.equal("Quota exhausted: this API key's budget of 3 units is used up.");
    expect(await a.usage('key_small')).to.equal(3);
    expect((await b.consume('key_other', 'r', 1)).allowed).to.equal(true);
    const unlimited = new RedisQuotaGuard(conn.redis, parseQuotaBudgets(''), prefix);
    expect((await unlimited.consume('key_small', 'r', 1)).allowed).to.equal(true);
  });

  it('with Redis down: admit and consume reject with ServiceUnavailableError quickly, and work again once it is back', async function () {
    this.timeout(30_000);
    const port = String(21000 + Math.floor(Math.random() * 19000));
    const url = execFileSync('bash', ['scripts/start-redis.sh', port], { encoding: 'utf8', cwd: new URL('../../../../../', import.meta.url).pathname }).trim();
    const redis = openRedis(url);
    try {
      await waitForRedis(redis);
      const registry = new RedisSessionRegistry(redis, systemClock, { maxSessions: 5, maxSessionsPerKey: 5, leaseMs: 1000, keyPrefix: 'svc-test-down:rt:' });
      registries.push(registry);
      const quota = new RedisQuotaGuard(redis, parseQuotaBudgets('5'), 'svc-test-down:q:');
      const held = leaseOf(await registry.admit({ apiKeyId: 'k', secretSessionId: null }));
      execFileSync('redis-cli', ['-p', port, 'shutdown', 'nosave']);
      await sleep(200);
      const started = Date.now();
      const down = await registry.admit({ apiKeyId: 'k', secretSessionId: null }).then(() => null, (e: unknown) => e);
      expect(down).to.be.instanceOf(ServiceUnavailableError);
      expect((down as ServiceUnavailableError).dependency).to.equal('redis');
      const quotaDown = await quota.consume('k', 'r', 1).then(() => null, (e: unknown) => e);
      expect(quotaDown).to.be.instanceOf(ServiceUnavailableError);
      expect(Date.now() - started, 'fails fast, no hang').to.be.below(3000);
      await registry.renewAll(); // logs and keeps the lease; must not throw
      execFileSync('bash', ['scripts/start-redis.sh', port], { cwd: new URL('../../../../../', import.meta.url).pathname });
      await waitForRedis(redis, 10_000);
      await registry.renewAll(); // the session is still open: its lease is back in the registry
      expect(registry.localSessions()).to.equal(1);
      expect(await redis.zcard('svc-test-down:rt:all')).to.equal(1);
      await held.release();
      expect(await redis.zcard('svc-test-down:rt:all')).to.equal(0);
      expect((await quota.consume('k', 'r', 1)).allowed).to.equal(true);
    } finally {
      redis.disconnect();
      try {
        execFileSync('redis-cli', ['-p', port, 'shutdown', 'nosave'], { stdio: 'ignore' });
      } catch {
        // already stopped
      }
    }
  });
});
