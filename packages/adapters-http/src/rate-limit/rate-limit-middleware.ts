import type { Middleware } from 'koa';
import { RateLimitExceededError, type RateLimiter } from '@svc/core';
import type { AppState } from '../app-state.js';

/** Admits a request only when the caller's bucket has a token; 429 with Retry-After otherwise. */
export function rateLimitMiddleware(limiter: RateLimiter, bucket: string): Middleware<AppState> {
  return async (ctx, next) => {
    const decision = await limiter.take(`${bucket}:${ctx.state.principal.apiKeyId}`);
    if (!decision.allowed) throw new RateLimitExceededError(Math.max(1, Math.ceil(decision.retryAfterSeconds)));
    await next();
  };
}
