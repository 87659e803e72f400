import { expect } from 'chai';
import { request } from 'node:http';
import type { RouteModule } from '../../src/app-state.js';
import { clientDisconnectSignal, type AbortUntil } from '../../src/routing/client-disconnect.js';
import { startApp, TEST_KEY, type RunningApp } from '../support/http-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What each request's signal saw, by request id. */
const seen = new Map<string, { aborted: boolean; reason: string | null }>();

/**
 * `/work/{until}/{mode}?id=`: takes the signal, then either answers at once (`quick`), sends the
 * headers and streams slowly (`stream`), or waits before answering (`slow`); records the signal 300 ms
 * after it ends.
 */
const work: RouteModule = {
  register(routes) {
    routes.add({
      method: 'get',
      path: '/work/{until}/{mode}',
      summary: 'work',
      tags: ['test'],
      responses: {},
      handlers: [
        async (ctx) => {
          const id = String(ctx.query.id);
          const signal = clientDisconnectSignal(ctx, ctx.params.until as AbortUntil);
          const record = () =>
            seen.set(id, { aborted: signal.aborted, reason: signal.aborted ? String((signal.reason as Error).message) : null });
          signal.addEventListener('abort', record);
          setTimeout(record, 600);
          if (ctx.params.mode === 'slow') await sleep(400);
          if (ctx.params.mode === 'stream') {
            ctx.res.writeHead(200, { 'content-type': 'text/plain' });
            ctx.res.write('first ');
            await sleep(400);
            if (!ctx.res.destroyed) ctx.res.end('last');
            ctx.respond = false;
            return;
          }
          ctx.body = { done: true };
        },
      ],
    });
  },
};

/** Starts a request and destroys its socket after `afterMs` (0: let it finish). */
function hit(url: string, path: string, afterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { headers: { Authorization: `Bearer ${TEST_KEY}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
      res.on('error', () => resolve());
      res.on('aborted', () => resolve());
    });
    req.on('error', () => resolve());
    req.end();
    if (afterMs > 0) setTimeout(() => req.destroy(), afterMs);
  });
}

describe('clientDisconnectSignal (the one client-disconnect AbortSignal of the routes)', () => {
  let t: RunningApp;
  before(async () => {
    t = await startApp({ api: [work] });
  });
  after(() => t.close());

  const outcome = async (until: AbortUntil, mode: string, disconnectAfterMs: number) => {
    const id = `${until}-${mode}-${disconnectAfterMs}`;
    await hit(t.url, `/work/${until}/${mode}?id=${id}`, disconnectAfterMs);
    await sleep(800);
    return seen.get(id);
  };

  it("'response': aborts when the client leaves before the answer, and while a streamed answer is still being written", async () => {
    expect(await outcome('response', 'slow', 100)).to.deep.equal({ aborted: true, reason: 'client disconnected' });
    expect(await outcome('response', 'stream', 150)).to.deep.equal({ aborted: true, reason: 'client disconnected' });
  });

  it("'headers': aborts before the answer starts, not once the headers are out (the work then belongs to a job)", async () => {
    expect(await outcome('headers', 'slow', 100)).to.deep.equal({ aborted: true, reason: 'client disconnected' });
    expect(await outcome('headers', 'stream', 150)).to.deep.equal({ aborted: false, reason: null });
  });

  it('never aborts a request that was answered in full', async () => {
    expect(await outcome('response', 'quick', 0)).to.deep.equal({ aborted: false, reason: null });
    expect(await outcome('headers', 'slow', 0)).to.deep.equal({ aborted: false, reason: null });
  });
});
