import { expect } from 'chai';
import { SHARED_TOKENS, type Logger } from '@svc/core';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { sleep } from '../helpers/http.js';

interface Entry {
  level: string;
  obj: Record<string, unknown>;
  msg?: string;
}

/** A logger that keeps every entry (the real one is pino; the levels and fields are what matter). */
function recordingLogger(entries: Entry[]): Logger {
  const make = (bindings: Record<string, unknown>): Logger => ({
    debug: (obj, msg) => void entries.push({ level: 'debug', obj: { ...bindings, ...obj }, msg }),
    info: (obj, msg) => void entries.push({ level: 'info', obj: { ...bindings, ...obj }, msg }),
    warn: (obj, msg) => void entries.push({ level: 'warn', obj: { ...bindings, ...obj }, msg }),
    error: (obj, msg) => void entries.push({ level: 'error', obj: { ...bindings, ...obj }, msg }),
    child: (more) => make({ ...bindings, ...more }),
  });
  return make({});
}

/** Issue 7, "also seen": a client that disconnects mid-stream is normal, logged at info without a stack. */
describe('hardening: client disconnects are not errors in the log (real server)', function () {
  this.timeout(60_000);
  const entries: Entry[] = [];
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ overrides: new Map<symbol, unknown>([[SHARED_TOKENS.Logger, recordingLogger(entries)]]) });
  });
  after(async () => t?.close());

  it('20 aborted speech requests (before and during the stream) leave no error or warn entry and no stack', async () => {
    const long = 'This is a fairly long sentence that keeps the engine busy for a while. '.repeat(40);
    for (let i = 0; i < 20; i++) {
      const abort = new AbortController();
      const res = fetch(`${t.baseUrl}/v1/audio/speech`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ input: long, response_format: i % 2 ? 'pcm' : 'mp3', stream: i % 2 === 1 }),
        signal: abort.signal,
      });
      if (i % 4 < 2) {
        setTimeout(() => abort.abort(), 5 + i); // before the first audio
        await res.catch(() => undefined);
      } else {
        const r = await res; // during the stream
        const reader = r.body!.getReader();
        await reader.read();
        abort.abort();
        await reader.read().catch(() => undefined);
      }
    }
    await sleep(1500);
    const bad = entries.filter((e) => e.level === 'error' || e.level === 'warn');
    expect(bad.map((e) => `${e.level} ${e.msg} ${JSON.stringify(e.obj).slice(0, 200)}`)).to.deep.equal([]);
    expect(JSON.stringify(entries)).to.not.include('    at ');
    expect(entries.some((e) => e.level === 'info' && e.obj.aborted === true)).to.equal(true);
  });
});
