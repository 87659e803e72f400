/** Per-key request admission (token bucket in the default adapter). */
export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until a request would be admitted (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(bucket: string, cost?: number): RateLimitDecision | Promise<RateLimitDecision>;
}

/** Spending budget per API key (unlimited by default). */
export interface QuotaGuard {
  /** Records `units` of usage of `resource`; resolves false when the key's budget refuses it. */
  consume(apiKeyId: string, resource: string, units: number): Promise<{ allowed: boolean; message?: string }>;
}
