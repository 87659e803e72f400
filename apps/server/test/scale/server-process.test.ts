import { expect } from 'chai';
import { getJson } from '../helpers/http.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

describe('server-process helper (a real server process on a free port)', function (this: Mocha.Suite) {
  this.timeout(120_000);
  let proc: ServerProcess | null = null;
  afterEach(async () => {
    await proc?.stop();
    proc = null;
  });

  it('starts ready, answers with its key, refuses another, and kill -9 ends it at once', async () => {
    proc = await startServerProcess();
    const ready = await getJson(`${proc.url}/readyz`, null);
    expect(ready.status).to.equal(200);
    expect((await getJson(`${proc.url}/v1/audio/voices`, proc.apiKey)).status).to.equal(200);
    expect((await getJson(`${proc.url}/v1/audio/voices`, 'sk-not-this-one')).status).to.equal(401);
    expect(proc.logs(), 'its log lines are captured').to.contain('listening');
    proc.kill('SIGKILL');
    const status = await proc.exited(10_000);
    expect(status.signal).to.equal('SIGKILL');
    expect(proc.alive()).to.equal(false);
  });

  it('SIGTERM stops it cleanly (exit code 0)', async () => {
    proc = await startServerProcess();
    const status = await proc.stop();
    expect(status).to.deep.equal({ code: 0, signal: null });
  });

  it('a process that cannot start rejects with its own error output', async () => {
    let message = '';
    try {
      proc = await startServerProcess({ env: { SVC_RATE_LIMIT_BURST: 'not-a-number' } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).to.match(/exited before it was ready/);
    expect(message).to.contain('SVC_RATE_LIMIT_BURST');
  });
});
