import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeWithFfmpeg, rmsOf } from '../helpers/http.js';
import { startTestServer } from '../helpers/test-server.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const run = promisify(execFile);

describe('examples/', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'svc-examples-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('synthesize-in-process.mjs speaks through the core without a server', async () => {
    const out = join(dir, 'bonjour.mp3');
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, 'examples/synthesize-in-process.mjs'), "Bonjour, je m'appelle Claire et j'habite à Lyon.", out],
      { cwd: ROOT },
    );
    expect(stdout).to.match(/of fr speech, voice espeak-fr/);
    const pcm = await decodeWithFfmpeg(new Uint8Array(readFileSync(out)), 16000);
    expect(pcm.length / 16000).to.be.within(1.5, 10);
    expect(rmsOf(pcm)).to.be.greaterThan(0.02);
  });

  it('synthesize-in-process.mjs detects the language as the server does: the README\'s "Bonjour !" is French', async () => {
    // It used franc, which hears English in a short French greeting; the server's detector does not.
    const out = join(dir, 'short.mp3');
    const { stdout } = await run(process.execPath, [join(ROOT, 'examples/synthesize-in-process.mjs'), 'Bonjour !', out], { cwd: ROOT });
    expect(stdout).to.match(/of fr speech, voice espeak-fr/);
  });

  it('realtime-client.mjs mints a client secret, connects with it and gets a streamed answer', async () => {
    const t = await startTestServer();
    try {
      const { stdout } = await run(process.execPath, [join(ROOT, 'examples/realtime-client.mjs'), 'Please remember that my name is Ada.'], {
        cwd: ROOT,
        env: { ...process.env, SVC_URL: t.baseUrl, SVC_API_KEY: t.apiKey },
      });
      expect(stdout).to.match(/Ada/);
      expect(stdout).to.contain('[response completed]');
    } finally {
      await t.close();
    }
  });
});
