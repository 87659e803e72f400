import type { Context, Middleware } from 'koa';
import type { LargeBodyLimit } from '@svc/core';
import type { AppState } from '../app-state.js';

/** A body over this many bytes (or of unknown length) is large: inline media or an upload, never plain JSON. */
export const LARGE_BODY_BYTES = 1024 * 1024;

/**
 * Counts each request with a large body in its key's LargeBodyLimit (SVC_MAX_LARGE_BODIES_PER_KEY),
 * from authentication to the answer, decided before the body is read: 429 concurrency_limit_exceeded
 * past it. Each such request holds its body several times over (the text, the parsed value, the
 * decoded bytes): 40 inline voices of 10 MB sent at once by one key added 0.9 GB to the process, and
 * the rate limit admits a burst of 100. The per-key rate limit bounds how often a key asks; this bounds
 * how much it holds at once. Small bodies (almost every request) are not counted. The same limit
 * counts the media URLs the server downloads for the key (the core's LimitedDownloads).
 */
export function largeBodiesPerKey(limit: LargeBodyLimit): Middleware<AppState> {
  return async (ctx, next) => {
    if (!carriesLargeBody(ctx)) return next();
    const end = limit.take(ctx.state.principal.apiKeyId);
    try {
      await next();
    } finally {
      end();
    }
  };
}

/** Declared over LARGE_BODY_BYTES, or chunked (its length unknown until read). */
function carriesLargeBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  if (length !== '') return Number(length) > LARGE_BODY_BYTES;
  return ctx.get('transfer-encoding') !== '';
}
