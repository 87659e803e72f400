// @test-tier serial: a stop's duration against the grace period, with several server processes
import { expect } from 'chai';
import { request } from 'node:http';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { openSession } from '../helpers/realtime-client.js';
import { getJson, json, sleep } from '../helpers/http.js';
import { createVideo, dataUri, samplePhoto, TEN_SECONDS } from '../video/video-helpers.js';
import { randomPort, startOwnRedis, stopOwnRedis } from './dependency-control.js';

/** Starts a speech request and resolves its status once the headers are in; `body` resolves the byte count. */
function speechInFlight(url: string, key: string, input: string, readDelayMs = 0) {
  return new Promise<{ status: number; body: Promise<number> }>((resolve, reject) => {
    const req = request(
      `${url}/v1/audio/speech`,
      { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } },
      (res) => {
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
      },
    );
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
      expect(server.logs())
        .to.match(/"shutting down"/)
        .and.match(/"stopped"/);
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

  /** How long the process took to stop, by its own "stopped" log line. */
  const stoppedAfterMs = (p: ServerProcess): number | null => {
    const line = p
      .logs()
      .split('\n')
      .find((l) => l.includes('"msg":"stopped"'));
    return line ? (JSON.parse(line) as { tookMs: number }).tookMs : null;
  };

  describe('a worker given SIGTERM while its Redis is unreachable (issue 17, defect 4)', () => {
    const GRACE_MS = 3000;
    let port: number;
    let redisUrl: string;
    beforeEach(() => {
      port = randomPort(17400);
      redisUrl = startOwnRedis(port);
    });
    afterEach(() => stopOwnRedis(port));

    it('an idle worker exits 0 within SVC_SHUTDOWN_GRACE_MS', async () => {
      const worker = await startServerProcess({
        env: { SVC_ROLE: 'worker', SVC_REDIS_URL: redisUrl, SVC_SHUTDOWN_GRACE_MS: String(GRACE_MS) },
      });
      try {
        await sleep(2000); // a worker that has been running a moment (its engines warmed up)
        stopOwnRedis(port);
        await sleep(500);
        const signalledAt = Date.now();
        worker.kill('SIGTERM');
        const status = await worker.exited(60_000);
        const tookMs = Date.now() - signalledAt;
        process.stdout.write(
          `      (Redis down: SIGTERM -> exit ${JSON.stringify(status)} after ${tookMs} ms; the process says ${stoppedAfterMs(worker)} ms; grace ${GRACE_MS} ms)\n`,
        );
        expect(status, worker.tail(10)).to.deep.equal({ code: 0, signal: null });
        expect(stoppedAfterMs(worker)).to.be.at.most(GRACE_MS);
        expect(tookMs, 'observed from outside, with a second for a loaded machine to reap it').to.be.below(GRACE_MS + 1000);
      } finally {
        await worker.stop();
      }
    });

    it('a worker in the middle of a render exits 0 within SVC_SHUTDOWN_GRACE_MS, and leaves no ffmpeg behind', async () => {
      const env = { SVC_REDIS_URL: redisUrl, SVC_SHUTDOWN_GRACE_MS: String(GRACE_MS) };
      const api = await startServerProcess({ env: { ...env, SVC_ROLE: 'api' } });
      const worker = await startServerProcess({ dataDir: api.dataDir, apiKey: api.apiKey, env: { ...env, SVC_ROLE: 'worker' } });
      try {
        const created = await json(
          await createVideo(api.url, api.apiKey, {
            ref_image: dataUri(samplePhoto(1), 'image/jpeg'),
            input_tts: { input: `${TEN_SECONDS} ${TEN_SECONDS}` },
          }),
        );
        expect(created.status, JSON.stringify(created.body)).to.equal(200);
        for (let i = 0; i < 1200; i++) {
          const v = (await getJson(`${api.url}/v1/videos/${created.body.id}`, api.apiKey)).body;
          if (v.status === 'in_progress' && v.progress >= 3) break;
          await sleep(50);
        }
        stopOwnRedis(port);
        await sleep(300);
        const { execFileSync } = await import('node:child_process');
        // Its children now (ffmpeg, the recognizer's helpers): none may outlive it.
        const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(worker.pid)], { encoding: 'utf8' })
          .split('\n')
          .map(Number)
          .filter((n) => n > 0);
        const signalledAt = Date.now();
        worker.kill('SIGTERM');
        const status = await worker.exited(60_000);
        const tookMs = Date.now() - signalledAt;
        process.stdout.write(
          `      (Redis down mid-render: SIGTERM -> exit ${JSON.stringify(status)} after ${tookMs} ms; the process says ${stoppedAfterMs(worker)} ms)\n`,
        );
        expect(status, worker.tail(10)).to.deep.equal({ code: 0, signal: null });
        expect(stoppedAfterMs(worker)).to.be.at.most(GRACE_MS);
        expect(tookMs).to.be.below(GRACE_MS + 1000);
        const alive = (pid: number) => {
          try {
            process.kill(pid, 0);
            return true;
          } catch {
            return false;
          }
        };
        for (let i = 0; i < 40 && children.some(alive); i++) await sleep(50);
        expect(children.filter(alive), 'children of the stopped worker still running').to.deep.equal([]);
      } finally {
        await Promise.all([worker.stop(), api.stop()]);
      }
    });
  });
});
