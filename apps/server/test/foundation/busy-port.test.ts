import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = resolve(fileURLToPath(import.meta.url), '../../../src/main.js');

/** What `npm start` prints when its port is taken: the setting to change, not only Node's EADDRINUSE. */
describe('a busy port', function () {
  this.timeout(60_000);
  let holder: Server;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-busy-port-'));
    holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    await new Promise((r) => holder.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops main.js with one line naming SVC_PORT and how to pick another', async () => {
    const port = (holder.address() as AddressInfo).port;
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...inherited,
        SVC_HOST: '127.0.0.1',
        SVC_PORT: String(port),
        SVC_DATA_DIR: dir,
        SVC_LOG_LEVEL: 'warn',
        SVC_SPEECH_WARM_UP: 'lazy',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code, stderr).to.equal(1);
    expect(stderr).to.contain(`svc failed to start: port ${port} is already in use on 127.0.0.1 (SVC_PORT=${port}, SVC_HOST=127.0.0.1)`);
    expect(stderr).to.contain('set SVC_PORT to a free port (SVC_PORT=0 picks any)');
  });
});
