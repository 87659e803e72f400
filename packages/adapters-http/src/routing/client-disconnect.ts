import type { Context } from 'koa';

/**
 * When a request's work stops mattering to the client that left:
 * - `'response'`: until the whole response is written (synthesis, registration, transcription: the
 *   result is only for this client, so a client leaving mid-stream stops the engines and ffmpeg);
 * - `'headers'`: until the response starts (a video: once its id is sent the job outlives the request).
 */
export type AbortUntil = 'response' | 'headers';

/** An AbortSignal that fires with `client disconnected` when the client goes away before `until`. */
export function clientDisconnectSignal(ctx: Pick<Context, 'res'>, until: AbortUntil = 'response'): AbortSignal {
  const abort = new AbortController();
  ctx.res.once('close', () => {
    const answered = until === 'headers' ? ctx.res.headersSent : ctx.res.writableFinished;
    if (!answered) abort.abort(new Error('client disconnected'));
  });
  return abort.signal;
}
