import type { Middleware } from 'koa';
import { randomUUID } from 'node:crypto';
import type { Logger } from '@svc/core';
import { matchedRoute, type AppState } from '../app-state.js';

/** Gives each request an id (echoed as X-Request-Id) and a child logger, and logs its outcome. */
export function requestContext(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = /^[\w.-]{1,64}$/.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    ctx.res.once('close', () => {
      const fields = {
        method: ctx.method,
        path: ctx.path,
        route: matchedRoute(ctx as never),
        status: ctx.status,
        ms: Math.round(performance.now() - started),
        aborted: !ctx.res.writableFinished,
      };
      if (ctx.status >= 500 && !fields.aborted) ctx.state.log.error(fields, 'request');
      else ctx.state.log.info(fields, 'request');
    });
    await next();
  };
}
