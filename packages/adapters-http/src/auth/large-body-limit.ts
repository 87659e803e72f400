import type { Context, Middleware } from 'koa';
import { CountsByKey, LargeBodyLimitError } from '@svc/core';
import type { AppState } from '../app-state.js';

/** A body over this many bytes (or of unknown length) is large: inline media or an upload, never plain JSON. */
export const LARGE_BODY_BYTES = 1024 * 1024;

/**
 * At most `max` requests with large bodies per API key at once (SVC_MAX_LARGE_BODIES_PER_KEY; 0: no
 * limit), counted from authentication to the answer, decided before the body is read: 429
 * concurrency_limit_exceeded past it. Each such request holds its body several times over (the text,
 * the parsed value, the decoded bytes): 40 inline voices of 10 MB sent at once by one key added 0.9 GB
 * to the process, and the rate limit admits a burst of 100. The per-key rate limit bounds how often a
 * key asks; this bounds how much it holds at once. Small bodies (almost every request) are not counted.
 */
export function largeBodiesPerKey(max: number): Middleware<AppState> {
  const open = new CountsByKey();
  return async (ctx, next) => {
    if (max <= 0 || !carriesLargeBody(ctx)) return next();
    const key = ctx.state.principal.apiKeyId;
    if (open.of(key) >= max) throw new LargeBodyLimitError(max);
    open.add(key);
    try {
      await next();
    } finally {
      open.remove(key);
    }
  };
}

/** Declared over LARGE_BODY_BYTES, or chunked (its length unknown until read). */
function carriesLargeBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  if (length !== '') return Number(length) > LARGE_BODY_BYTES;
  return ctx.get('transfer-encoding') !== '';
}
