import { expect } from 'chai';
import { request } from 'node:http';
import { startServerProcess } from '../helpers/server-process.js';
import { openSession } from '../helpers/realtime-client.js';
import { sleep } from '../helpers/http.js';

/** Starts a speech request and resolves its status once the headers are in; `body` resolves the byte count. */
function speechInFlight(url: string, key: string, input: string, readDelayMs = 0) {
  return new Promise<{ status: number; body: Promise<number> }>((resolve, reject) => {
    const req = request(`${url}/v1/audio/speech`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } }, (res) => {
      const body = new Promise<number>((done, fail) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (readDelayMs > 0) {
            res.pause();
            setTimeout(() => res.resume(), readDelayMs);
          }
        });
        res.on('end', () => (res.complete ? done(bytes) : fail(new Error(`cut after ${bytes} bytes`))));
        res.on('error', fail);
        res.on('aborted', () => fail(new Error(`cut after ${bytes} bytes`)));
      });
      // Awaited later (or never, when an earlier expectation fails): a cut must not surface as an
      // unhandled rejection of the test process meanwhile.
      body.catch(() => undefined);
      resolve({ status: res.statusCode ?? 0, body });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ input, response_format: 'pcm' }));
  });
}

const LONG_TEXT = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} of a long answer that takes a while to speak.`).join(' ');

describe('graceful shutdown on SIGTERM (a real server process)', function () {
  this.timeout(120_000);

  it('stops accepting, lets the in-flight speech finish, closes realtime sessions 1001, exits 0', async () => {
    const server = await startServerProcess({ env: { SVC_SHUTDOWN_GRACE_MS: '20000' } });
    try {
      const { client } = await openSession(server.wsUrl, server.apiKey);
      const reference = await speechInFlight(server.url, server.apiKey, LONG_TEXT);
      const fullBytes = await reference.body;
      const inFlight = await speechInFlight(server.url, server.apiKey, LONG_TEXT, 5);
      const signalledAt = Date.now();
      server.kill('SIGTERM');
      const closed = await client.closed;
      expect(closed).to.deep.equal({ code: 1001, reason: 'server shutting down' });
      await sleep(200);
      const refused = await fetch(`${server.url}/healthz`).then(
        (r) => `answered ${r.status}`,
        (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
      );
      expect(refused).to.equal('ECONNREFUSED', 'no new connection is accepted once shutting down');
      expect(inFlight.status).to.equal(200);
      expect(await inFlight.body).to.equal(fullBytes, 'the in-flight response is delivered whole');
      const status = await server.exited(40_000);
      const tookMs = Date.now() - signalledAt;
      expect(status).to.deep.equal({ code: 0, signal: null });
      expect(server.logs()).to.match(/"shutting down"/).and.match(/"stopped"/);
      process.stdout.write(`      (SIGTERM -> exit 0 in ${tookMs} ms with one streamed speech response in flight)\n`);
    } finally {
      await server.stop();
    }
  });

  it('a request still running after SVC_SHUTDOWN_GRACE_MS is cut, and the process still exits 0 in bounded time', async () => {
    const server = await startServerProcess({ env: { SVC_SHUTDOWN_GRACE_MS: '500' } });
    try {
      // A client that reads one chunk every 2 s keeps its response going well past the grace period.
      const slow = await speechInFlight(server.url, server.apiKey, `${LONG_TEXT} ${LONG_TEXT}`, 200);
      const signalledAt = Date.now();
      server.kill('SIGTERM');
      const status = await server.exited(40_000);
      const tookMs = Date.now() - signalledAt;
      // The client reads its buffered bytes slowly; the cut shows once it reaches it.
      const outcome = await slow.body.then(
        (bytes) => `whole (${bytes} bytes)`,
        (err: Error) => err.message,
      );
      expect(outcome).to.match(/^cut after \d+ bytes$/);
      expect(status).to.deep.equal({ code: 0, signal: null });
      expect(tookMs).to.be.below(15_000);
      process.stdout.write(`      (grace 500 ms: slow reader cut, exit 0 after ${tookMs} ms)\n`);
    } finally {
      await server.stop();
    }
  });
});
