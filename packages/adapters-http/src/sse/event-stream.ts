import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { toServiceError } from '@svc/core';
import type { AppState } from '../app-state.js';
import { restErrorBody } from '../errors/rest-error.js';

/** One server-sent event: `data:` with the JSON object (OpenAI's streams name the event in its `type`). */
export function sseFrame(data: object, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

/**
 * Answers with `text/event-stream`, one event per item of `events`. The first event is awaited
 * before the status is sent, so a request that fails before producing anything (bad audio, an
 * unknown voice) still gets a proper error response. A failure after that cannot change the
 * status any more: it becomes an `error` event in the REST error shape (what OpenAI's SDKs raise
 * as an APIError), and the stream ends cleanly.
 */
export async function sendEventStream(ctx: Context & { state: AppState }, events: AsyncIterable<object>): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = Readable.from(frames(ctx, first, iterator), { objectMode: false });
}

async function* frames(
  ctx: Context & { state: AppState },
  first: IteratorResult<object>,
  rest: AsyncIterator<object>,
): AsyncGenerator<string> {
  try {
    if (first.done) return;
    yield sseFrame(first.value);
    for (let r = await rest.next(); !r.done; r = await rest.next()) yield sseFrame(r.value);
  } catch (err) {
    if (ctx.res.destroyed) throw err;
    const serviceError = toServiceError(err);
    ctx.state.log?.warn({ err: String(err) }, 'event stream failed after it started; sent an error event');
    yield sseFrame(restErrorBody(serviceError), 'error');
  } finally {
    await rest.return?.();
  }
}
