import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { ServiceError } from '@svc/core';
import type { AppState } from '../app-state.js';
import { fromHttpLibraryError, restErrorBody } from './rest-error.js';
import { httpHeadersOf, httpStatusOf } from './http-status.js';

/**
 * The one place where failures become HTTP responses: every error leaves as the REST error body,
 * never an HTML page or a stack trace. Unknown failures are logged with their stack and answered
 * with a generic 500.
 */
export function errorMiddleware(translate?: (err: unknown) => ServiceError | null): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (clientGone(ctx.req, ctx.res)) {
        // A client that hangs up is normal: what it interrupted is not an error of the service.
        ctx.state.log?.info(
          { reason: err instanceof Error ? err.message : String(err) },
          'client disconnected before the response was complete',
        );
        ctx.req.socket?.destroy();
        return;
      }
      const serviceError = translate?.(err) ?? fromHttpLibraryError(err);
      const status = httpStatusOf(serviceError);
      if (status >= 500) ctx.state.log?.error({ err, detail: (serviceError as { detail?: unknown }).detail }, 'request failed');
      if (ctx.headerSent || !ctx.writable) {
        // Mid-stream failure: the status is gone; end the connection so the client sees truncation.
        ctx.state.log?.warn({ err: String(err) }, 'error after response started; closing stream');
        ctx.req.socket?.destroy();
        return;
      }
      ctx.status = status;
      ctx.set(httpHeadersOf(serviceError));
      ctx.body = restErrorBody(serviceError);
    }
  };
}

/** The connection closed before the response finished (the client aborted or disconnected). */
export function clientGone(req: IncomingMessage, res: ServerResponse): boolean {
  return !res.writableFinished && (res.destroyed || req.socket?.destroyed === true);
}
