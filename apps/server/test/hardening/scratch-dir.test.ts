import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestServer } from '../helpers/test-server.js';
import { postJson } from '../helpers/http.js';

/** Issue 7, "also seen": kill -9 left svc-flite-* / svc-asr-* in the system temp directory for good. */
describe('hardening: engine scratch space lives under the data directory and is cleared at start-up', function () {
  this.timeout(60_000);

  it("what dead processes left in <dataDir>/tmp is removed at start; the flite work directory is made in this process's folder", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-scratch-'));
    // A dead process's folder (pid 2^22 + 1 is above Linux's pid_max) and a loose leftover.
    const stale = join(dataDir, 'tmp', 'p4194305', 'svc-flite-left-by-kill-9');
    const loose = join(dataDir, 'tmp', 'svc-asr-loose');
    mkdirSync(loose, { recursive: true });
    mkdirSync(join(stale, 't1'), { recursive: true });
    writeFileSync(join(stale, 't1', 'out.wav'), 'x');
    const t = await startTestServer({ dataDir });
    try {
      expect(existsSync(stale)).to.equal(false);
      expect(existsSync(loose)).to.equal(false);
      const res = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: 'Scratch space.', response_format: 'wav' }, t.apiKey);
      expect(res.status).to.equal(200);
      await res.arrayBuffer();
      expect(readdirSync(join(dataDir, 'tmp', `p${process.pid}`)).filter((n) => n.startsWith('svc-flite-'))).to.have.length(1);
    } finally {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
