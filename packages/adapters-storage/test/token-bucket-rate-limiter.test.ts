import { expect } from 'chai';
import { TokenBucketRateLimiter } from '../src/rate-limit/token-bucket-rate-limiter.js';
import { manualClock, rateLimiterContract } from './rate-limiter-contract.js';

describe('TokenBucketRateLimiter', () => {
  rateLimiterContract((clock, perMinute, burst) => new TokenBucketRateLimiter(clock, perMinute, burst));

  it('forgets the least recently used buckets beyond its cap', () => {
    const limiter = new TokenBucketRateLimiter(manualClock(), 60, 1, 2);
    limiter.take('a');
    limiter.take('b');
    limiter.take('c'); // evicts a
    expect(limiter.take('a').allowed).to.equal(true);
    expect(limiter.take('c').allowed).to.equal(false);
  });
});
