import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { ServiceUnavailableError } from '@svc/core';
import { openRedis, waitForRedis } from '../../src/redis/redis-connection.js';
import { RedisSessionRegistry } from '../../src/redis/redis-session-registry.js';
import { RedisQuotaGuard } from '../../src/redis/redis-quota-guard.js';
import { parseQuotaBudgets } from '../../src/realtime/in-memory-quota-guard.js';
import { leaseOf, sessionRegistryContract } from '../session-registry-contract.js';
import { connectTestRedis, describeWithRedis } from './redis-target.js';

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
  const pair = (caps: { maxSessions: number; maxSessionsPerKey: number }, leaseMs = 15_000) => {
    const keyPrefix = `${conn.prefix}rt${run++}:`;
    const made: [RedisSessionRegistry, RedisSessionRegistry] = [
      new RedisSessionRegistry(conn.redis, { ...caps, leaseMs, keyPrefix }),
      new RedisSessionRegistry(second.redis, { ...caps, leaseMs, keyPrefix }),
    ];
    registries.push(...made);
    return made;
  };

  describe('contract (two clients: two processes)', () => {
    sessionRegistryContract(async (caps) => pair(caps));
  });

  it('a lease no one renews (its process was killed) frees its slot after leaseMs; a renewed one stays', async () => {
    // Leases expire on the Redis server's clock, so this runs on real time with margins of a second.
    const [dead, live] = pair({ maxSessions: 2, maxSessionsPerKey: 2 }, 3_000);
    await dead.close(); // stops renewing, as a killed process does
    await live.close(); // renewed by hand below
    leaseOf(await dead.admit({ apiKeyId: 'k', secretSessionId: 'sess_dead' }));
    leaseOf(await live.admit({ apiKeyId: 'k', secretSessionId: null }));
    expect((await live.admit({ apiKeyId: 'k', secretSessionId: null })).admitted).to.equal(false);
    await sleep(2_000);
    await live.renewAll();
    await sleep(2_000); // 4 s after admission: the dead lease (3 s) is gone, the one renewed at 2 s (until 5 s) is not
    expect(
      (await live.admit({ apiKeyId: 'k', secretSessionId: 'sess_dead' })).admitted,
      'the dead session slot and its ephemeral key are free',
    ).to.equal(true);
    expect((await live.admit({ apiKeyId: 'k', secretSessionId: null })).admitted, 'the renewed lease still counts').to.equal(false);
  });

  it("leases expire by Redis's clock: a process whose clock runs an hour ahead neither frees the others' slots nor loses its own", async () => {
    const keyPrefix = `${conn.prefix}skew${run++}:`;
    // No registry reads its process's clock any more: the skewed process is simulated by moving the
    // whole clock of this test process forward an hour (Date.now is what a skewed host would report).
    const onTime = new RedisSessionRegistry(conn.redis, { maxSessions: 1, maxSessionsPerKey: 1, leaseMs: 15_000, keyPrefix });
    const ahead = new RedisSessionRegistry(second.redis, { maxSessions: 1, maxSessionsPerKey: 1, leaseMs: 15_000, keyPrefix });
    registries.push(onTime, ahead);
    leaseOf(await onTime.admit({ apiKeyId: 'k', secretSessionId: null }));
    const realNow = Date.now;
    Date.now = () => realNow() + 3_600_000;
    try {
      expect(
        (await ahead.admit({ apiKeyId: 'k', secretSessionId: null })).admitted,
        'the slot is taken, whatever this process believes the time is',
      ).to.equal(false);
      await ahead.renewAll();
    } finally {
      Date.now = realNow;
    }
    expect((await onTime.admit({ apiKeyId: 'k', secretSessionId: null })).admitted).to.equal(false);
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

  it('sends a script body at most once, then runs it by its SHA1 (EVALSHA), pipelined renewals included', async () => {
    const calls = async () => {
      const stats = await conn.redis.info('commandstats');
      const count = (command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
      return { eval: count('eval'), evalsha: count('evalsha') };
    };
    const [a] = pair({ maxSessions: 50, maxSessionsPerKey: 50 });
    await a.close(); // renewals by hand below
    const quota = new RedisQuotaGuard(conn.redis, parseQuotaBudgets('100'), `${conn.prefix}shaq:`);
    const before = await calls();
    const leases = [];
    for (let i = 0; i < 10; i++) leases.push(leaseOf(await a.admit({ apiKeyId: 'k', secretSessionId: `sess_${i}` })));
    await a.renewAll();
    for (const lease of leases) await lease.release();
    for (let i = 0; i < 10; i++) await quota.consume('k', 'r', 1);
    const after = await calls();
    // 10 admits + 10 renewals + 10 releases + 10 quota takes = 40 script runs, by EVALSHA; a server
    // that did not know a script yet answers its first EVALSHA with NOSCRIPT (a failed call, not
    // counted), and the body goes once. So at most 4 bodies, at least 36 runs by SHA1.
    expect(after.eval - before.eval).to.be.at.most(4);
    expect(after.evalsha - before.evalsha).to.be.at.least(36);
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
    const url = execFileSync('bash', ['scripts/start-redis.sh', port], {
      encoding: 'utf8',
      cwd: new URL('../../../../../', import.meta.url).pathname,
    }).trim();
    const redis = openRedis(url);
    try {
      await waitForRedis(redis);
      const registry = new RedisSessionRegistry(redis, {
        maxSessions: 5,
        maxSessionsPerKey: 5,
        leaseMs: 1000,
        keyPrefix: 'svc-test-down:rt:',
      });
      registries.push(registry);
      const quota = new RedisQuotaGuard(redis, parseQuotaBudgets('5'), 'svc-test-down:q:');
      const held = leaseOf(await registry.admit({ apiKeyId: 'k', secretSessionId: null }));
      execFileSync('redis-cli', ['-p', port, 'shutdown', 'nosave']);
      await sleep(200);
      const started = Date.now();
      const down = await registry.admit({ apiKeyId: 'k', secretSessionId: null }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(down).to.be.instanceOf(ServiceUnavailableError);
      expect((down as ServiceUnavailableError).dependency).to.equal('redis');
      const quotaDown = await quota.consume('k', 'r', 1).then(
        () => null,
        (e: unknown) => e,
      );
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
