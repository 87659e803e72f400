import type { Middleware } from 'koa';
import { randomUUID } from 'node:crypto';
import type { Logger } from '@svc/core';
import { matchedRoute, type AppState } from '../app-state.js';

/**
 * Gives each request an id (echoed as X-Request-Id) and a child logger, and logs its outcome: the
 * status sent (null when the client left before any), the time, and `aborted` when the response
 * was not written whole.
 */
export function requestContext(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = /^[\w.-]{1,64}$/.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    ctx.res.once('close', () => {
      // What reached the client: the status line it was sent, or none at all (a client that went
      // away before the answer started; koa's ctx.status would then still read its default 404).
      const sent = ctx.res.headersSent ? ctx.res.statusCode : null;
      const fields = {
        method: ctx.method,
        path: ctx.path,
        route: matchedRoute(ctx as never),
        status: sent,
        ms: Math.round(performance.now() - started),
        // The connection closed before the whole response was written (the client left, or the server cut it at shutdown).
        aborted: !ctx.res.writableFinished,
      };
      if (sent !== null && sent >= 500 && !fields.aborted) ctx.state.log.error(fields, 'request');
      else ctx.state.log.info(fields, 'request');
    });
    await next();
  };
}
