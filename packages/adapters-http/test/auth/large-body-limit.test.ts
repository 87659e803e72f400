import { expect } from 'chai';
import { request } from 'node:http';
import type { RouteModule } from '../../src/app-state.js';
import { readJsonBody } from '../../src/body/json-body.js';
import { errorOf, startApp, TEST_KEY, testRoute, type RunningApp } from '../support/http-app.js';

/** A route that reads its body, then waits until the test lets it answer. */
function gatedUpload(): { module: RouteModule; bodiesRead: () => number; release: () => void } {
  let read = 0;
  let open!: () => void;
  let gate = new Promise<void>((resolve) => (open = resolve));
  const module = testRoute('post', '/upload', async (ctx) => {
    await readJsonBody(ctx, 4 * 1024 * 1024);
    read++;
    await gate;
    ctx.body = { ok: true };
  });
  return {
    module,
    bodiesRead: () => read,
    release: () => {
      open();
      gate = new Promise<void>((resolve) => (open = resolve));
    },
  };
}

const large = JSON.stringify({ ref_audio: 'A'.repeat(1024 * 1024 + 10) });

describe('largeBodiesPerKey: requests with bodies over 1 MiB a key may have in progress', () => {
  let t: RunningApp;
  let upload: ReturnType<typeof gatedUpload>;
  beforeEach(async () => {
    upload = gatedUpload();
    t = await startApp({ api: [upload.module], maxLargeBodiesPerKey: 2 });
  });
  afterEach(() => t.close());

  const post = (body: string) => t.call('/upload', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('past the limit: 429 concurrency_limit_exceeded with Retry-After, the body unread; small bodies pass; a finished one frees its place', async () => {
    const first = [post(large), post(large)];
    await until(() => upload.bodiesRead() === 2);
    const refused = await post(large);
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(await errorOf(refused)).to.include({ type: 'concurrency_limit_exceeded', param: null });
    expect(upload.bodiesRead(), 'the refused body was not read').to.equal(2);
    const small = post('{"a":1}');
    await until(() => upload.bodiesRead() === 3);
    expect(upload.bodiesRead(), 'a small body is not counted').to.equal(3);
    upload.release();
    expect((await Promise.all([...first, small])).map((r) => r.status)).to.deep.equal([200, 200, 200]);
    const again = post(large);
    await until(() => upload.bodiesRead() === 4);
    upload.release();
    expect((await again).status).to.equal(200);
  });

  it('a chunked body (length unknown) counts as large', async () => {
    const held = [post(large), post(large)];
    await until(() => upload.bodiesRead() === 2);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${t.url}/upload`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${TEST_KEY}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end('{"a":1}');
    });
    expect(status).to.equal(429);
    upload.release();
    await Promise.all(held);
  });
});
