import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { call, REFERENCE_TEXT, registerJson, speechBytes } from './voice-helpers.js';

/** A local media host: a real reference clip plus the misbehaviours the fetcher must survive. */
async function startMediaHost(clip: Buffer): Promise<{ port: number; sentFromEndless: () => number; close(): Promise<void> }> {
  let endlessSent = 0;
  const server: Server = createServer((req, res) => {
    const port = (server.address() as AddressInfo).port;
    switch (req.url) {
      case '/ref.wav':
        return void res.writeHead(200, { 'Content-Type': 'audio/wav' }).end(clip);
      case '/to-private':
        return void res.writeHead(302, { Location: `http://127.0.0.1:${port}/ref.wav` }).end();
      case '/to-ref':
        return void res.writeHead(301, { Location: '/ref.wav' }).end();
      case '/endless': {
        res.writeHead(200, { 'Content-Type': 'audio/wav' });
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (!res.destroyed && endlessSent < 100 * 1024 * 1024) {
            endlessSent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        return pump();
      }
      case '/slow':
        return void setTimeout(() => res.writeHead(200).end(clip), 10_000).unref();
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    sentFromEndless: () => endlessSent,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('ref_audio URLs are fetched safely (real server, local media host)', function () {
  this.timeout(120_000);
  let strict: TestServer;
  let allowing: TestServer;
  let host: Awaited<ReturnType<typeof startMediaHost>>;

  before(async () => {
    strict = await startTestServer();
    // Operators can open internal hosts; here `localhost` is allowed, its raw address is not.
    allowing = await startTestServer({
      env: {
        SVC_MEDIA_ALLOWED_HOSTS: 'localhost',
        SVC_MEDIA_FETCH_TIMEOUT_MS: '1000',
        SVC_MEDIA_MAX_DOWNLOAD_BYTES: String(2 * 1024 * 1024),
      },
    });
    host = await startMediaHost(await speechBytes(strict, strict.apiKey, { input: REFERENCE_TEXT, voice: 'rms', response_format: 'wav' }));
  });
  after(async () => {
    await host?.close();
    await strict?.close();
    await allowing?.close();
  });

  const url = (path: string) => `http://localhost:${host.port}${path}`;

  it('private and loopback addresses are refused by default', async () => {
    for (const ref of [
      url('/ref.wav'),
      `http://127.0.0.1:${host.port}/ref.wav`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/x.wav',
      'http://10.0.0.1/x.wav',
    ]) {
      const res = await registerJson(strict, strict.apiKey, { ref_audio: ref });
      expect(res.status, ref).to.equal(400);
      expect(res.body.error.type).to.equal('media_url_not_allowed');
    }
    expect((await call(strict, 'GET', '/v1/audio/voices', strict.apiKey)).body.data).to.deep.equal([]);
  });

  it('an allowlisted host is fetched (success, also through a redirect)', async () => {
    const direct = await registerJson(allowing, allowing.apiKey, { ref_audio: url('/ref.wav'), ref_text: REFERENCE_TEXT });
    expect(direct.status, JSON.stringify(direct.body)).to.equal(200);
    const redirected = await registerJson(allowing, allowing.apiKey, { ref_audio: url('/to-ref') });
    expect(redirected.body.voice).to.equal(direct.body.voice);
    await call(allowing, 'DELETE', `/v1/audio/voices/${direct.body.voice}`, allowing.apiKey);
  });

  it('a redirect to a private address is refused', async () => {
    const res = await registerJson(allowing, allowing.apiKey, { ref_audio: url('/to-private') });
    expect(res.status).to.equal(400);
    expect(res.body.error.type).to.equal('media_url_not_allowed');
  });

  it('an oversize body is refused while streaming (413), without downloading it all', async () => {
    const res = await registerJson(allowing, allowing.apiKey, { ref_audio: url('/endless') });
    expect(res.status).to.equal(413);
    expect(res.body.error.type).to.equal('media_too_large');
    await new Promise((r) => setTimeout(r, 200));
    expect(host.sentFromEndless()).to.be.lessThan(20 * 1024 * 1024);
  });

  it('a slow server times out (400 media_fetch_timeout)', async () => {
    // No wall-clock bound: the timeout error is the proof that the deadline fired (the server would answer later).
    const res = await registerJson(allowing, allowing.apiKey, { ref_audio: url('/slow') });
    expect(res.status).to.equal(400);
    expect(res.body.error.type).to.equal('media_fetch_timeout');
  });

  it('a URL that answers an HTTP error is media_fetch_failed', async () => {
    const res = await registerJson(allowing, allowing.apiKey, { ref_audio: url('/missing.wav') });
    expect(res.status).to.equal(400);
    expect(res.body.error.type).to.equal('media_fetch_failed');
  });
});
