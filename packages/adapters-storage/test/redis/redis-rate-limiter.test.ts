import { expect } from 'chai';
import { RedisRateLimiter } from '../../src/redis/redis-rate-limiter.js';
import { manualClock, rateLimiterContract } from '../rate-limiter-contract.js';
import { connectTestRedis, describeWithRedis } from './redis-target.js';

describeWithRedis('RedisRateLimiter', () => {
  let conn: Awaited<ReturnType<typeof connectTestRedis>>;
  let second: Awaited<ReturnType<typeof connectTestRedis>>;
  before(async () => {
    conn = await connectTestRedis();
    second = await connectTestRedis();
  });
  after(async () => {
    await conn.close();
    await second.close();
  });

  describe('contract', () => {
    let run = 0;
    rateLimiterContract((clock, perMinute, burst) => new RedisRateLimiter(conn.redis, clock, perMinute, burst, `${conn.prefix}c${run++}:`));
  });

  it('shares one bucket between two limiters on two connections (two processes)', async () => {
    const clock = manualClock();
    const prefix = `${conn.prefix}shared:`;
    const a = new RedisRateLimiter(conn.redis, clock, 60, 4, prefix);
    const b = new RedisRateLimiter(second.redis, clock, 60, 4, prefix);
    const results = await Promise.all([a, b, a, b, a, b].map((l) => l.take('speech:key1')));
    expect(results.filter((r) => r.allowed)).to.have.length(4);
    expect((await a.take('speech:key2')).allowed).to.equal(true);
  });

  it('admits exactly the burst under 200 concurrent takes (atomic script)', async () => {
    const clock = manualClock();
    const prefix = `${conn.prefix}race:`;
    const limiters = [conn.redis, second.redis].map((r) => new RedisRateLimiter(r, clock, 60, 25, prefix));
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => limiters[i % 2]!.take('k')));
    expect(results.filter((r) => r.allowed)).to.have.length(25);
  });

  it('lets an idle bucket expire from Redis', async () => {
    const clock = manualClock();
    const limiter = new RedisRateLimiter(conn.redis, clock, 60, 2, `${conn.prefix}ttl:`);
    await limiter.take('k');
    const ttl = await conn.redis.pttl(`${conn.prefix}ttl:k`);
    expect(ttl).to.be.greaterThan(0).and.at.most(2_000);
  });
});
