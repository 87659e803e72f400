import { expect } from 'chai';
import { SHARED_TOKENS, type Clock } from '@svc/core';
import { InMemoryApiKeyRepository } from '@svc/adapters-storage';
import { startTestServer } from '../helpers/test-server.js';
import { postJson, json } from '../helpers/http.js';

/** The third use of the design: the container factory takes overrides (here a repository and a clock). */
describe('container overrides', function () {
  this.timeout(60_000);

  it('runs the real server on an in-memory key repository and a frozen clock', async () => {
    const repo = new InMemoryApiKeyRepository();
    let now = 1_800_000_000_000;
    const clock: Clock = { now: () => now, setTimer: () => () => undefined };
    const t = await startTestServer({
      clock,
      overrides: new Map<symbol, unknown>([[SHARED_TOKENS.ApiKeyRepository, repo]]),
      env: { SVC_RATE_LIMIT_PER_MINUTE: '60', SVC_RATE_LIMIT_BURST: '1' },
    });
    try {
      const rows = await repo.list();
      expect(rows).to.have.length(1);
      expect(rows[0]!.createdAt).to.equal(1_800_000_000_000);
      const speak = () => postJson(`${t.baseUrl}/v1/audio/speech`, { input: 'Hi.', response_format: 'pcm' }, t.apiKey);
      expect((await speak()).status).to.equal(200);
      // The frozen clock never refills the bucket...
      expect((await json(await speak())).status).to.equal(429);
      // ...until the test moves time forward.
      now += 1_000;
      expect((await speak()).status).to.equal(200);
    } finally {
      await t.close();
    }
  });

  it('accepts keys given in SVC_API_KEYS besides stored ones', async () => {
    const t = await startTestServer({ env: { SVC_API_KEYS: 'automation-key-one, automation-key-two' } });
    try {
      for (const key of ['automation-key-one', 'automation-key-two', t.apiKey]) {
        const res = await fetch(`${t.baseUrl}/v1/audio/presets`, { headers: { Authorization: `Bearer ${key}` } });
        expect(res.status, key).to.equal(200);
      }
      const res = await fetch(`${t.baseUrl}/v1/audio/presets`, { headers: { Authorization: 'Bearer automation-key-three' } });
      expect(res.status).to.equal(401);
    } finally {
      await t.close();
    }
  });
});
