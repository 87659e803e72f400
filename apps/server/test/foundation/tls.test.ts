import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** SVC_TLS_CERT / SVC_TLS_KEY: the same port serves HTTPS (and WSS for realtime). */
describe('TLS', function () {
  this.timeout(60_000);
  let dir: string;
  let t: TestServer;
  let cert: Buffer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
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
