import { expect } from 'chai';
import type { Clock, RateLimiter } from '@svc/core';

/** A clock the contract tests move by hand. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export function manualClock(start = 1_000_000): ManualClock {
  let now = start;
  return { now: () => now, setTimer: () => () => undefined, advance: (ms) => void (now += ms) };
}

/** Behaviour every RateLimiter adapter shares (in-process and Redis). */
export function rateLimiterContract(make: (clock: Clock, perMinute: number, burst: number) => RateLimiter | Promise<RateLimiter>): void {
  let clock: ManualClock;
  beforeEach(() => {
    clock = manualClock();
  });
  const allowed = async (limiter: RateLimiter, key: string, n: number) => {
    const out: boolean[] = [];
    for (let i = 0; i < n; i++) out.push((await limiter.take(key)).allowed);
    return out;
  };

  it('admits a burst, then refills at the configured rate', async () => {
    const limiter = await make(clock, 60, 3);
    expect(await allowed(limiter, 'k', 3)).to.deep.equal([true, true, true]);
    const refused = await limiter.take('k');
    expect(refused.allowed).to.equal(false);
    expect(refused.retryAfterSeconds).to.be.closeTo(1, 1e-6);
    clock.advance(1000);
    expect(await allowed(limiter, 'k', 2)).to.deep.equal([true, false]);
  });

  it('keeps keys apart and never exceeds the burst after a long idle', async () => {
    const limiter = await make(clock, 60, 2);
    expect(await allowed(limiter, 'a', 3)).to.deep.equal([true, true, false]);
    expect((await limiter.take('b')).allowed).to.equal(true);
    clock.advance(3_600_000);
    expect(await allowed(limiter, 'a', 3)).to.deep.equal([true, true, false]);
  });

  it('is disabled with a rate of 0', async () => {
    const limiter = await make(clock, 0, 0);
    expect((await allowed(limiter, 'k', 200)).every(Boolean)).to.equal(true);
  });

  it('charges a cost above 1 and reports when it would fit', async () => {
    const limiter = await make(clock, 120, 4);
    expect((await limiter.take('k', 3)).allowed).to.equal(true);
    const refused = await limiter.take('k', 3);
    expect(refused.allowed).to.equal(false);
    expect(refused.retryAfterSeconds).to.be.closeTo(1, 1e-6); // 2 tokens missing at 2 per second
  });
}
