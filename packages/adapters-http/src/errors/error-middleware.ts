import type { Middleware } from 'koa';
import type { AppState } from '../app-state.js';
import { fromHttpLibraryError, restErrorBody } from './rest-error.js';
import { httpHeadersOf, httpStatusOf } from './http-status.js';

/**
 * The one place where failures become HTTP responses: every error leaves as the REST error body,
 * never an HTML page or a stack trace. Unknown failures are logged with their stack and answered
 * with a generic 500.
 */
export function errorMiddleware(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const serviceError = fromHttpLibraryError(err);
      const status = httpStatusOf(serviceError);
      if (status >= 500) ctx.state.log?.error({ err }, 'request failed');
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
