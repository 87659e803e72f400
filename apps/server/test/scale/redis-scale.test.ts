import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { postJson } from '../helpers/http.js';

const redisUrl = process.env.SVC_TEST_REDIS_URL;
const describeWithRedis = redisUrl
  ? describe
  : (title: string, body: (this: Mocha.Suite) => void) =>
      describe.skip(`${title} (Redis: pending, set SVC_TEST_REDIS_URL=$(bash scripts/start-redis.sh) to run)`, body);

const speak = (t: TestServer, key: string) => postJson(`${t.baseUrl}/v1/audio/speech`, { input: 'Hi.', response_format: 'pcm' }, key);

describeWithRedis('scale-out on a real Redis (two server processes)', function (this: Mocha.Suite) {
  this.timeout(120_000);
  const key = `sk-scale-${randomUUID()}`;
  const env = {
    SVC_REDIS_URL: redisUrl ?? '',
    SVC_REDIS_KEY_PREFIX: `svc-test:${randomUUID()}:`,
    SVC_API_KEYS: key,
    SVC_RATE_LIMIT_PER_MINUTE: '1',
    SVC_RATE_LIMIT_BURST: '3',
  };

  it('the speech rate limit is one bucket for both servers', async () => {
    const a = await startTestServer({ env });
    const b = await startTestServer({ env });
    try {
      const statuses: number[] = [];
      for (const t of [a, b, a, b, a]) {
        const res = await speak(t, key);
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('/readyz lists database, redis and blob store, and goes 503 naming redis while it is down, then recovers', async () => {
    // Its own Redis on its own port: this test stops it, the shared one stays up.
    const port = String(20000 + Math.floor(Math.random() * 20000));
    const ownUrl = execFileSync('bash', ['scripts/start-redis.sh', port], { encoding: 'utf8' }).trim();
    const t = await startTestServer({ env: { ...env, SVC_REDIS_URL: ownUrl } });
    try {
      const ready = await fetch(`${t.baseUrl}/readyz`);
      expect(ready.status).to.equal(200);
      const readyBody = (await ready.json()) as { status: string; checks: Record<string, string> };
      expect(readyBody.status).to.equal('ready');
      expect(readyBody.checks).to.deep.equal({ database: 'ok', redis: 'ok', blob_store: 'ok' });

      execFileSync('redis-cli', ['-p', port, 'shutdown', 'nosave']);
      const down = await fetch(`${t.baseUrl}/readyz`);
      expect(down.status).to.equal(503);
      const body = (await down.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).to.equal('not_ready');
      expect(body.checks.database).to.equal('ok');
      expect(body.checks.redis).to.match(/^failing: /);
      // A rate-limited request fails cleanly instead of hanging.
      const refused = await speak(t, key);
      expect(refused.status).to.be.within(500, 503);

      execFileSync('bash', ['scripts/start-redis.sh', port]);
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 200));
        status = (await fetch(`${t.baseUrl}/readyz`)).status;
      }
      expect(status, 'ready again after Redis restarts, without restarting the server').to.equal(200);
    } finally {
      await t.close();
      try {
        execFileSync('redis-cli', ['-p', port, 'shutdown', 'nosave'], { stdio: 'ignore' });
      } catch {
        // already stopped
      }
    }
  });

  it('/readyz goes 503 naming the blob store when its directory cannot be used', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-blobdown-'));
    writeFileSync(join(dataDir, 'blobs'), 'not a directory');
    const t = await startTestServer({ dataDir, env });
    try {
      const res = await fetch(`${t.baseUrl}/readyz`);
      expect(res.status).to.equal(503);
      const body = (await res.json()) as { checks: Record<string, string> };
      expect(body.checks.blob_store).to.match(/^failing: /);
      expect(body.checks.database).to.equal('ok');
    } finally {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
