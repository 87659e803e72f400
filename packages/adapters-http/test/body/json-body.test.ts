import { expect } from 'chai';
import { request } from 'node:http';
import type { RouteModule } from '../../src/app-state.js';
import { readJsonBody } from '../../src/body/json-body.js';
import { errorOf, startApp, TEST_KEY, type RunningApp } from '../support/http-app.js';

const LIMIT = 64;

/** Echoes what readJsonBody made of the body (undefined as the string 'undefined'). */
const echo: RouteModule = {
  register(routes) {
    for (const [path, allowEmpty, limit] of [
      ['/echo', false, LIMIT],
      ['/echo-optional', true, LIMIT],
      ['/echo-roomy', false, 64 * 1024],
    ] as const) {
      routes.add({
        method: 'post',
        path,
        summary: 'echo',
        tags: ['test'],
        responses: {},
        handlers: [
          async (ctx) => {
            const value = await readJsonBody(ctx, limit, { allowEmpty });
            ctx.body = { value: value === undefined ? 'undefined' : value };
          },
        ],
      });
    }
  },
};

describe('readJsonBody: the JSON body reader of every JSON route', () => {
  let t: RunningApp;
  before(async () => {
    t = await startApp({ api: [echo] });
  });
  after(() => t.close());

  // Bytes, not a string: fetch adds no Content-Type of its own to them.
  const post = (body: string, type: string | null = 'application/json', path = '/echo') =>
    t.call(path, { method: 'POST', body: new TextEncoder().encode(body), headers: type ? { 'Content-Type': type } : {} });

  it('parses a JSON body (application/json, any +json type, or no content type)', async () => {
    expect(await (await post('{"a":[1,"é"]}')).json()).to.deep.equal({ value: { a: [1, 'é'] } });
    expect(await (await post('{"a":1}', 'application/merge-patch+json')).json()).to.deep.equal({ value: { a: 1 } });
    expect(await (await post('[1]', null)).json()).to.deep.equal({ value: [1] });
  });

  it('refuses another content type with invalid_request_error, before reading', async () => {
    const res = await post('a=1', 'application/x-www-form-urlencoded');
    expect(res.status).to.equal(400);
    expect(await errorOf(res)).to.include({
      type: 'invalid_request_error',
      message: "Expected Content-Type application/json, got 'application/x-www-form-urlencoded'.",
    });
  });

  it('refuses a compressed body (any Content-Encoding but identity) with invalid_request_error, before parsing', async () => {
    for (const encoding of ['gzip', 'br']) {
      const res = await t.call('/echo', {
        method: 'POST',
        body: new TextEncoder().encode('{"a":1}'),
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      });
      expect(res.status, encoding).to.equal(400);
      expect(await errorOf(res)).to.include({
        type: 'invalid_request_error',
        message: `Content-Encoding '${encoding}' is not supported; send the request body uncompressed.`,
      });
    }
    const identity = await t.call('/echo', {
      method: 'POST',
      body: new TextEncoder().encode('{"a":1}'),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'identity' },
    });
    expect(await identity.json()).to.deep.equal({ value: { a: 1 } });
  });

  it('refuses malformed JSON and an empty body with invalid_json; an empty body is allowed where the route says so', async () => {
    const bad = await post('{"a":');
    expect(bad.status).to.equal(400);
    expect((await errorOf(bad)).type).to.equal('invalid_json');
    const empty = await post('  ');
    expect(empty.status).to.equal(400);
    expect(await errorOf(empty)).to.include({ type: 'invalid_json', message: 'The request body is empty; a JSON object is required.' });
    expect(await (await post('', 'application/json', '/echo-optional')).json()).to.deep.equal({ value: 'undefined' });
  });

  it('refuses arrays or objects nested over 128 deep with invalid_json, before parsing; strings do not count', async () => {
    const nested = (depth: number, open: string, close: string) => open.repeat(depth) + '1' + close.repeat(depth);
    for (const [open, close] of [
      ['[', ']'],
      ['{"a":', '}'],
    ]) {
      const deep = await post(nested(129, open!, close!), 'application/json', '/echo-roomy');
      expect(deep.status, open).to.equal(400);
      expect(await errorOf(deep)).to.include({
        type: 'invalid_json',
        message: 'The request body is not valid JSON: arrays and objects are nested more than 128 levels deep, the limit',
      });
      expect((await post(nested(128, open!, close!), 'application/json', '/echo-roomy')).status, open).to.equal(200);
    }
    // Brackets inside strings (and escaped quotes around them) are text, not nesting.
    const text = '\\"' + '['.repeat(300) + '\\"';
    expect(await (await post(JSON.stringify({ text }), 'application/json', '/echo-roomy')).json()).to.deep.equal({ value: { text } });
  });

  it('refuses a body over the limit with 413: by its declared length, and while reading a chunked one', async () => {
    const declared = await post(JSON.stringify({ text: 'x'.repeat(LIMIT) }));
    expect(declared.status).to.equal(413);
    expect((await errorOf(declared)).type).to.equal('payload_too_large');
    // Chunked: no Content-Length, so the limit stops the read itself.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${t.url}/echo`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${TEST_KEY}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.write('{"text":"');
      req.write('y'.repeat(LIMIT));
      req.end('"}');
    });
    expect(chunked.status).to.equal(413);
    expect(JSON.parse(chunked.body).error.type).to.equal('payload_too_large');
  });
});
