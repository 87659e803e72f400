import { expect } from 'chai';
import { TokenBucketRateLimiter } from '../src/rate-limit/token-bucket-rate-limiter.js';

describe('TokenBucketRateLimiter', () => {
  let now = 0;
  const clock = { now: () => now, setTimer: () => () => undefined };
  beforeEach(() => {
    now = 1_000_000;
  });

  it('admits a burst, then refills at the configured rate', () => {
    const limiter = new TokenBucketRateLimiter(clock, 60, 3);
    expect([1, 2, 3].map(() => limiter.take('k').allowed)).to.deep.equal([true, true, true]);
    const refused = limiter.take('k');
    expect(refused.allowed).to.equal(false);
    expect(refused.retryAfterSeconds).to.be.closeTo(1, 1e-9);
    now += 1000;
    expect(limiter.take('k').allowed).to.equal(true);
    expect(limiter.take('k').allowed).to.equal(false);
  });

  it('keeps keys apart and never exceeds the burst after a long idle', () => {
    const limiter = new TokenBucketRateLimiter(clock, 60, 2);
    limiter.take('a');
    limiter.take('a');
    expect(limiter.take('a').allowed).to.equal(false);
    expect(limiter.take('b').allowed).to.equal(true);
    now += 3_600_000;
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).to.deep.equal([true, true, false]);
  });

  it('is disabled with a rate of 0', () => {
    const limiter = new TokenBucketRateLimiter(clock, 0, 0);
    for (let i = 0; i < 1000; i++) expect(limiter.take('k').allowed).to.equal(true);
  });

  it('forgets the least recently used buckets beyond its cap', () => {
    const limiter = new TokenBucketRateLimiter(clock, 60, 1, 2);
    limiter.take('a');
    limiter.take('b');
    limiter.take('c'); // evicts a
    expect(limiter.take('a').allowed).to.equal(true);
    expect(limiter.take('c').allowed).to.equal(false);
  });
});
