import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { selfSignedCertificate } from '../helpers/self-signed-certificate.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** SVC_TLS_CERT / SVC_TLS_KEY: the same port serves HTTPS (and WSS for realtime). */
describe('TLS', function () {
  this.timeout(60_000);
  let dir: string;
  let t: TestServer;
  let cert: Buffer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    selfSignedCertificate(dir);
    cert = readFileSync(join(dir, 'cert.pem'));
    t = await startTestServer({ env: { SVC_TLS_CERT: join(dir, 'cert.pem'), SVC_TLS_KEY: join(dir, 'key.pem') } });
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string, key: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${t.baseUrl}${path}`, { ca: cert, headers: { Authorization: `Bearer ${key}` } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('serves the API over HTTPS with the configured certificate', async () => {
    expect(t.baseUrl.startsWith('https://')).to.equal(true);
    expect(t.wsUrl.startsWith('wss://')).to.equal(true);
    const ok = await get('/v1/audio/presets', t.apiKey);
    expect(ok.status).to.equal(200);
    expect(JSON.parse(ok.body).object).to.equal('list');
    expect((await get('/v1/audio/presets', 'svc-bad')).status).to.equal(401);
  });

  it("the openai SDK's OpenAIRealtimeWS (always wss://) holds a text turn, as docs/realtime.md shows it", async () => {
    // The SDK's baseURL with http:// or https://; it connects with wss:// either way. The test gives
    // the socket the certificate (ws options) where a reader uses NODE_EXTRA_CA_CERTS.
    const client = new OpenAI({ apiKey: t.apiKey, baseURL: `${t.baseUrl}/v1` });
    const rt = await OpenAIRealtimeWS.create(client, { model: 'svc-realtime', options: { ca: cert } });
    const errors: string[] = [];
    rt.on('error', (err) => errors.push(err.message));
    const text = await new Promise<string>((resolve) => {
      let reply = '';
      rt.socket.on('open', () => {
        rt.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } });
        rt.send({
          type: 'conversation.item.create',
          item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello.' }] },
        });
        rt.send({ type: 'response.create' });
      });
      rt.on('response.output_text.delta', (e) => (reply += e.delta));
      rt.on('response.done', () => resolve(reply));
    });
    rt.close();
    expect(errors).to.deep.equal([]);
    expect(text).to.contain('Say hello.');
  });

  it('refuses to start with only one of cert and key', async () => {
    let message = '';
    try {
      await startTestServer({ env: { SVC_TLS_CERT: join(dir, 'cert.pem') } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).to.contain('SVC_TLS_CERT and SVC_TLS_KEY');
  });
});
