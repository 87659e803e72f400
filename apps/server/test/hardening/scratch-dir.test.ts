import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestServer } from '../helpers/test-server.js';
import { postJson } from '../helpers/http.js';

/** Issue 7, "also seen": kill -9 left svc-flite-* / svc-asr-* in the system temp directory for good. */
describe('hardening: engine scratch space lives under the data directory and is cleared at start-up', function () {
  this.timeout(60_000);

  it('a stale <dataDir>/tmp is emptied at start; the flite work directory is made under it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-scratch-'));
    const stale = join(dataDir, 'tmp', 'svc-flite-left-by-kill-9');
    mkdirSync(join(stale, 't1'), { recursive: true });
    writeFileSync(join(stale, 't1', 'out.wav'), 'x');
    const t = await startTestServer({ dataDir });
    try {
      expect(existsSync(stale)).to.equal(false);
      const res = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: 'Scratch space.', response_format: 'wav' }, t.apiKey);
      expect(res.status).to.equal(200);
      await res.arrayBuffer();
      expect(readdirSync(join(dataDir, 'tmp')).filter((n) => n.startsWith('svc-flite-'))).to.have.length(1);
    } finally {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
