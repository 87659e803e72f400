import { loadavg } from 'node:os';
import { openRedis, RedisRateLimiter, TokenBucketRateLimiter, waitForRedis } from '@svc/adapters-storage';
import type { Clock, RateLimiter } from '@svc/core';
import { round } from './harness.js';

const clock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** `takes` decisions spread over `keys` keys, `concurrency` in flight: decisions/s and CPU µs per decision. */
async function measure(
  limiter: RateLimiter,
  takes: number,
  keys: number,
  concurrency: number,
): Promise<{ perSecond: number; cpuMicros: number; allowed: number }> {
  let next = 0;
  let allowed = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < takes) {
        const i = next++;
        if ((await limiter.take(`speech:key_${i % keys}`)).allowed) allowed++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { perSecond: takes / seconds, cpuMicros: (used.user + used.system) / takes, allowed };
}

/**
 * `npm run bench -- rate-limit`: decisions per second and CPU per decision of the in-process token
 * bucket, and of the Redis one (one EVALSHA per decision) when SVC_BENCH_REDIS_URL or
 * SVC_TEST_REDIS_URL names a Redis. Limits: 600/min, burst 20 per key (most takes are refused once
 * the bursts are spent, as under abuse).
 */
export async function benchRateLimit(): Promise<Record<string, number | string>> {
  const results: Record<string, number | string> = {};
  const memory = new TokenBucketRateLimiter(clock, 600, 20);
  await measure(memory, 200_000, 1_000, 1); // warm up
  for (const keys of [100, 10_000]) {
    const r = await measure(new TokenBucketRateLimiter(clock, 600, 20), 1_000_000, keys, 1);
    results[`memory, ${keys} keys: decisions/s`] = Math.round(r.perSecond);
    results[`memory, ${keys} keys: CPU per decision (µs)`] = round(r.cpuMicros, 3);
  }
  const url = process.env.SVC_BENCH_REDIS_URL ?? process.env.SVC_TEST_REDIS_URL;
  if (url) {
    const redis = openRedis(url);
    await waitForRedis(redis);
    try {
      const prefix = `svc-bench:${process.pid}:rl:`;
      await measure(new RedisRateLimiter(redis, clock, 600, 20, prefix), 2_000, 100, 16); // warm up, loads the script
      // Bytes the server received per decision: a figure the machine's load does not change.
      const received = async () => Number(/total_net_input_bytes:(\d+)/.exec(await redis.info('stats'))![1]);
      // The Redis server's own CPU time (all its work, so run this on a Redis nobody else uses).
      const serverCpu = async () => {
        const info = await redis.info('cpu');
        return Number(/used_cpu_user:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]);
      };
      for (const concurrency of [1, 16]) {
        const before = await received();
        const cpuBefore = await serverCpu();
        const r = await measure(new RedisRateLimiter(redis, clock, 600, 20, prefix), 20_000, 1_000, concurrency);
        const bytes = ((await received()) - before) / 20_000;
        results[`redis, ${concurrency} in flight: Redis server CPU per decision (µs)`] = round(
          (((await serverCpu()) - cpuBefore) * 1e6) / 20_000,
          1,
        );
        results[`redis, ${concurrency} in flight: decisions/s`] = Math.round(r.perSecond);
        results[`redis, ${concurrency} in flight: client CPU per decision (µs)`] = round(r.cpuMicros, 1);
        results[`redis, ${concurrency} in flight: bytes sent to Redis per decision`] = Math.round(bytes);
      }
      const keys = await redis.keys(`${prefix}*`);
      for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    } finally {
      redis.disconnect();
    }
  } else {
    results.redis = 'skipped (set SVC_BENCH_REDIS_URL)';
  }
  results['load average'] = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  return results;
}
