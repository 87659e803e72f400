import { expect } from 'chai';
import { applySessionUpdate, CLIENT_EVENT_TYPES, MAX_INPUT_CHARS, parseClientEvent, SERVER_EVENT_TYPES } from '@svc/core';
import { CLIENT_EVENT_DOCS, CLOSE_ENDING_DOCS, SERVER_EVENT_DOCS } from '@svc/adapters-http';
import { CLOSE_CODES } from '@svc/adapters-ws';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The public page routes over real HTTP: what is served, what is refused, and with which headers. */
describe('playground and reference routes (real server)', function () {
  this.timeout(30_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => t?.close());

  const get = (path: string, init: RequestInit = {}) => fetch(`${t.baseUrl}${path}`, { redirect: 'manual', ...init });

  it('/ leads to /playground, which is served without a key', async () => {
    const root = await get('/');
    expect(root.status).to.equal(302);
    expect(root.headers.get('location')).to.equal('/playground');
    const page = await get('/playground');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).to.contain('<title>svc playground</title>');
    // Nothing from another origin: every src/href is a path on this server.
    for (const [, url] of html.matchAll(/(?:src|href)="([^"#]+)"/g)) expect(url, url).to.match(/^\//);
  });

  it('serves the compiled scripts and the styles with a same-origin content security policy', async () => {
    for (const [path, type] of [
      ['/playground/js/main.js', 'text/javascript; charset=utf-8'],
      ['/playground/js/capture-worklet.js', 'text/javascript; charset=utf-8'],
      ['/playground/style.css', 'text/css; charset=utf-8'],
      ['/playground/favicon.svg', 'image/svg+xml'],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type'), path).to.equal(type);
      expect(res.headers.get('content-security-policy'), path).to.contain("default-src 'self'");
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    }
    // Revalidation: an unchanged file is a 304 (fetch adds `Cache-Control: no-cache` to a conditional
    // request unless told otherwise, and no-cache rightly forbids a 304).
    const first = await get('/playground/style.css');
    const again = await get('/playground/style.css', {
      headers: { 'If-Modified-Since': first.headers.get('last-modified')!, 'Cache-Control': 'max-age=0' },
    });
    expect(again.status).to.equal(304);
  });

  it("serves the limits the page enforces from the API's own rules, and the page copies none of them", async () => {
    const res = await get('/playground/limits.json');
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ speech: { max_input_chars: MAX_INPUT_CHARS } });
    const page = await (await get('/playground')).text();
    const script = await (await get('/playground/js/speech-panel.js')).text();
    for (const text of [page, script]) expect(text).not.to.contain(String(MAX_INPUT_CHARS));
  });

  it('refuses paths that leave the page folders, hidden files and unknown types (404 in the REST error shape)', async () => {
    for (const path of [
      '/playground/../package.json',
      '/playground/%2e%2e/package.json',
      '/playground/js/..%2f..%2fpackage.json',
      '/playground/%2e%2e%2f%2e%2e%2fpackage.json',
      '/playground/js/main.d.ts',
      '/playground/js/main.ts',
      '/playground/.hidden.js',
      '/playground/nothing-here.js',
      '/playground/%00.js',
      '/docs/viewer/index.html',
      '/docs/viewer/swagger-initializer.js',
    ]) {
      const res = await get(path);
      expect(res.status, path).to.equal(404);
      const body = (await res.json()) as { error: { type: string } };
      expect(body.error.type, path).to.equal('not_found');
    }
  });

  it('/docs serves the viewer page and only the viewer files it needs; the OpenAPI document still needs a key', async () => {
    const docs = await get('/docs');
    expect(docs.status).to.equal(200);
    expect(await docs.text()).to.contain('/docs/viewer/swagger-ui-bundle.js');
    expect((await get('/docs/viewer/swagger-ui-bundle.js')).status).to.equal(200);
    expect((await get('/docs/viewer/swagger-ui.css')).status).to.equal(200);
    expect((await get('/v1/openapi.json')).status).to.equal(401);
  });

  it('serves the sample face photos it lists, and nothing else of their folder', async () => {
    const list = (await (await get('/playground/samples.json')).json()) as { faces: string[] };
    expect(list.faces).to.have.length(6);
    for (const url of list.faces) {
      const res = await get(url);
      expect(res.status, url).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/jpeg');
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect([bytes[0], bytes[1]], url).to.deep.equal([0xff, 0xd8]); // a JPEG
    }
    for (const path of ['/playground/samples/facemesh.png', '/playground/samples/index.html', '/playground/samples/..%2fpackage.json']) {
      expect((await get(path)).status, path).to.equal(404);
    }
  });

  it('the pages accept GET and HEAD only', async () => {
    expect((await get('/playground', { method: 'HEAD' })).status).to.equal(200);
    const post = await get('/playground', { method: 'POST' });
    expect(post.status).to.equal(405);
  });

  it('/docs/realtime lists every client and server event and close code of the engine', async () => {
    const res = await get('/docs/realtime');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.contain("default-src 'self'");
    const html = await res.text();
    for (const type of [...CLIENT_EVENT_TYPES, ...SERVER_EVENT_TYPES]) expect(html, type).to.contain(`<code>${type}</code>`);
    for (const code of Object.values(CLOSE_CODES)) expect(html).to.contain(`<code>${code}</code>`);
    for (const ending of Object.keys(CLOSE_CODES)) expect(html).to.contain(`<code>${ending}</code>`);
  });
});

describe('SVC_PLAYGROUND=false (an API-only deployment)', function () {
  this.timeout(30_000);
  it('serves no pages; the API is unchanged', async () => {
    const t = await startTestServer({ env: { SVC_PLAYGROUND: 'false' } });
    try {
      for (const path of ['/', '/playground', '/playground/js/main.js', '/docs', '/docs/realtime', '/docs/viewer/swagger-ui-bundle.js']) {
        expect((await fetch(`${t.baseUrl}${path}`, { redirect: 'manual' })).status, path).to.equal(404);
      }
      const presets = await fetch(`${t.baseUrl}/v1/audio/presets`, { headers: { Authorization: `Bearer ${t.apiKey}` } });
      expect(presets.status).to.equal(200);
    } finally {
      await t.close();
    }
  });
});

describe('realtime reference catalog matches the engine', () => {
  it('documents exactly the engine’s client and server events and the transport’s close reasons', () => {
    expect(Object.keys(CLIENT_EVENT_DOCS).sort()).to.deep.equal([...CLIENT_EVENT_TYPES].sort());
    expect(Object.keys(SERVER_EVENT_DOCS).sort()).to.deep.equal([...SERVER_EVENT_TYPES].sort());
    expect(Object.keys(CLOSE_ENDING_DOCS).sort()).to.deep.equal(Object.keys(CLOSE_CODES).sort());
  });

  it('every example carries its own type, and every client example passes the engine’s parser', () => {
    for (const [type, doc] of [...Object.entries(CLIENT_EVENT_DOCS), ...Object.entries(SERVER_EVENT_DOCS)]) {
      expect(doc.example.type, type).to.equal(type);
    }
    for (const [type, doc] of Object.entries(CLIENT_EVENT_DOCS)) {
      expect(() => parseClientEvent(doc.example, 'evt_1'), type).to.not.throw();
    }
    // The session.update example is a configuration the engine accepts.
    expect(() => applySessionUpdate(CLIENT_EVENT_DOCS['session.update'].example.session, null, null)).to.not.throw();
  });

  it('server examples carry a string event_id, as strict clients require', () => {
    for (const [type, doc] of Object.entries(SERVER_EVENT_DOCS)) expect(doc.example.event_id, type).to.be.a('string');
  });
});
