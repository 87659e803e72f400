import { expect } from 'chai';
import { request } from 'node:http';
import { sleep } from '../helpers/http.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const LONG_TEXT = 'This is a fairly long sentence that keeps the speech engine busy for a while. '.repeat(30);

/** The access-log entry (msg "request") of one request id, from the process's own log lines. */
function accessEntry(server: ServerProcess, requestId: string): Record<string, unknown> | undefined {
  for (const line of server.logs().split('\n')) {
    if (!line.startsWith('{') || !line.includes(requestId)) continue;
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry.msg === 'request' && entry.requestId === requestId) return entry;
  }
  return undefined;
}

async function waitForEntry(server: ServerProcess, requestId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const entry = accessEntry(server, requestId);
    if (entry) return entry;
    await sleep(100);
  }
  throw new Error(`no access-log entry for ${requestId}\n${server.tail(20)}`);
}

/** Issue 17, defect 7: a request the client abandons is logged as aborted, with the status only if one was sent (never koa's default 404). */
describe('access log: client-aborted requests (a real server process, its own log)', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess();
  });
  after(async () => server?.stop());

  const speech = (requestId: string, body: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(`${server.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json', 'X-Request-Id': requestId },
      body: JSON.stringify(body),
      signal,
    });

  it('a completed request: its status, aborted false', async () => {
    const res = await speech('req-complete', { input: 'Hello.', response_format: 'pcm' });
    await res.arrayBuffer();
    expect(await waitForEntry(server, 'req-complete')).to.include({ status: 200, aborted: false, level: 30 });
  });

  it('aborted before the response started: aborted, no status (not 404)', async () => {
    const abort = new AbortController();
    const pending = speech('req-abort-early', { input: LONG_TEXT, response_format: 'wav' }, abort.signal);
    await sleep(150);
    abort.abort();
    await pending.catch(() => undefined);
    const entry = await waitForEntry(server, 'req-abort-early');
    expect(entry).to.include({ aborted: true, level: 30, route: '/v1/audio/speech' });
    expect(entry.status, JSON.stringify(entry)).to.equal(null);
  });

  it('aborted during a streamed response: aborted, with the status that was sent', async () => {
    const abort = new AbortController();
    const res = await speech('req-abort-stream', { input: LONG_TEXT, response_format: 'pcm', stream: true }, abort.signal);
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.read().catch(() => undefined);
    const entry = await waitForEntry(server, 'req-abort-stream');
    expect(entry).to.include({ aborted: true, status: 200, level: 30 });
  });

  it('aborted while the body was still being sent: aborted, no status', async () => {
    await new Promise<void>((resolve) => {
      const req = request(`${server.url}/v1/audio/speech`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${server.apiKey}`,
          'Content-Type': 'application/json',
          'Content-Length': '100000',
          'X-Request-Id': 'req-abort-upload',
        },
      });
      req.on('error', () => resolve());
      req.write('{"input": "Half a bo');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    const entry = await waitForEntry(server, 'req-abort-upload');
    expect(entry).to.include({ aborted: true });
    expect(entry.status, JSON.stringify(entry)).to.equal(null);
    expect(server.logs()).to.not.match(/"status":404/);
  });
});
