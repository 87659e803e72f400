import type { Clock, RateLimitDecision, RateLimiter } from '@svc/core';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token bucket per key, in process memory: `burst` requests at once, refilled at `perMinute`.
 * A limit of 0 disables limiting. Scale-out replaces this with a shared (Redis) store behind the
 * same RateLimiter port.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly clock: Clock,
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly maxBuckets = 100_000,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  take(key: string, cost = 1): RateLimitDecision {
    if (this.perMinute <= 0) return { allowed: true, retryAfterSeconds: 0 };
    const now = this.clock.now();
    const capacity = Math.max(1, this.burst);
    const bucket = this.buckets.get(key) ?? { tokens: capacity, updatedAt: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs);
    bucket.updatedAt = now;
    this.remember(key, bucket);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return { allowed: false, retryAfterSeconds: (cost - bucket.tokens) / this.refillPerMs / 1000 };
  }

  private remember(key: string, bucket: Bucket): void {
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    // Map iteration is insertion-ordered: the first entry is the least recently used.
    if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
  }
}
