import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getJson } from '../helpers/http.js';
import { selfSignedCertificate } from '../helpers/self-signed-certificate.js';

const MAIN = resolve(fileURLToPath(import.meta.url), '../../../src/main.js');

/** What a newcomer sees: `npm start` on an empty data directory prints the URL and a working key. */
describe('first start (the real main.js as a child process)', function () {
  this.timeout(60_000);
  let dir: string;
  let child: ChildProcess | null = null;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-main-'));
  });
  after(() => {
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (env: Record<string, string> = {}) =>
    new Promise<{ url: string; key: string | null; output: string }>((resolvePromise, reject) => {
      child = spawn(process.execPath, [MAIN], {
        env: { ...process.env, SVC_PORT: '0', SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'warn', SVC_API_KEYS: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const timer = setTimeout(() => reject(new Error(`no listening line in: ${output}`)), 45_000);
      child.stdout!.on('data', (d: Buffer) => {
        output += d.toString();
        const url = /listening on (https?:\/\/[^\s]+)/.exec(output)?.[1];
        if (url && /Try it[^\n]*:\n/.test(output)) {
          clearTimeout(timer);
          resolvePromise({ url, key: /^\s+(svc-[A-Za-z0-9_-]{20,})\s*$/m.exec(output)?.[1] ?? null, output });
        }
      });
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
    });

  /** The banner's "Try it" command, pasted into bash in `cwd` (with KEY exported when no key was printed). */
  const tryIt = (output: string, cwd: string, key: string) => {
    const command = /Try it[^\n]*:\n([\s\S]*?hello\.mp3)/.exec(output)?.[1];
    expect(command, output).to.be.a('string');
    return spawnSync('bash', ['-e', '-c', command!], { cwd, env: { ...process.env, KEY: key }, encoding: 'utf8' });
  };

  const stop = () =>
    new Promise<void>((r) => {
      child!.once('exit', () => r());
      child!.kill('SIGTERM');
    });

  it('creates, prints and accepts a key on the first start only', async () => {
    const first = await start();
    expect(first.key, first.output).to.be.a('string');
    const ok = await getJson(`${first.url}/v1/audio/presets`, first.key);
    expect(ok.status).to.equal(200);
    expect((await getJson(`${first.url}/v1/audio/presets`, null)).status).to.equal(401);
    // The banner points a newcomer at the playground, which is served.
    expect(first.output).to.contain(`Playground: ${first.url}/playground`);
    expect((await fetch(`${first.url}/playground`)).status).to.equal(200);
    // The banner's command works when pasted: it writes the speech.
    const pasted = tryIt(first.output, dir, first.key!);
    expect(pasted.status, pasted.stderr).to.equal(0);
    expect(statSync(join(dir, 'hello.mp3')).size).to.be.above(1000);
    await stop();

    const second = await start();
    expect(second.key).to.equal(null);
    // No key printed: the banner's command reads it from $KEY, as the README's examples do.
    expect(second.output).to.contain('export KEY=').and.contain('Bearer $KEY"');
    expect((await getJson(`${second.url}/v1/audio/presets`, first.key)).status).to.equal(200);
    await stop();
    child = null;
  });

  it("over TLS with a self-signed certificate, the banner's command works as pasted (curl is given the certificate)", async () => {
    // docs/realtime.md has a reader make such a certificate to try TLS; curl refuses it unless told
    // (exit 60, and `curl -s` prints nothing).
    const tls = mkdtempSync(join(tmpdir(), 'svc-main-tls-'));
    try {
      selfSignedCertificate(tls);
      const started = await start({ SVC_DATA_DIR: tls, SVC_TLS_CERT: join(tls, 'cert.pem'), SVC_TLS_KEY: join(tls, 'key.pem') });
      expect(started.url.startsWith('https://'), started.output).to.equal(true);
      const pasted = tryIt(started.output, tls, started.key!);
      expect(pasted.status, pasted.stderr).to.equal(0);
      expect(existsSync(join(tls, 'hello.mp3'))).to.equal(true);
      expect(statSync(join(tls, 'hello.mp3')).size).to.be.above(1000);
      await stop();
      child = null;
    } finally {
      rmSync(tls, { recursive: true, force: true });
    }
  });
});
