import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { getJson } from '../helpers/http.js';
import { megabytes, processTreeMemory } from '../helpers/process-memory.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const redisUrl = process.env.SVC_TEST_REDIS_URL;
const describeWithRedis = redisUrl
  ? describe
  : (title: string, body: (this: Mocha.Suite) => void) =>
      describe.skip(`${title} (Redis: pending, set SVC_TEST_REDIS_URL=$(bash scripts/start-redis.sh) to run)`, body);

/**
 * A worker process (SVC_ROLE=worker) renders queued videos and nothing else, so it loads no speech,
 * cloning or realtime engine and starts no recognizer (issue 24: workers loaded every engine, the
 * recognizer included). Measured at ~150 MB idle (the whole server with its defaults: ~255 MB).
 */
const WORKER_IDLE_RSS_BOUND_MB = 190;

describeWithRedis('a worker process loads only what rendering needs (real Redis queue)', function (this: Mocha.Suite) {
  this.timeout(180_000);
  let worker: ServerProcess | null = null;
  after(async () => {
    await worker?.stop();
  });

  it(`holds under ${WORKER_IDLE_RSS_BOUND_MB} MB idle, with no speech thread, no decoder process, and says why it has no recognizer`, async () => {
    worker = await startServerProcess({
      env: {
        SVC_ROLE: 'worker',
        SVC_REDIS_URL: redisUrl!,
        SVC_REDIS_KEY_PREFIX: `svc-test:${randomUUID()}:`,
        SVC_SPEECH_WARM_UP: 'blocking',
        SVC_REALTIME_WARM_UP: 'blocking',
      },
      readyTimeoutMs: 120_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const tree = processTreeMemory(worker.pid);
    const detail = tree.processes.map((p) => `${p.pid} ${megabytes(p.rssBytes)} MB ${p.threads} threads ${p.command}`).join('\n');
    console.log(`      worker idle: ${megabytes(tree.rssBytes)} MB\n${detail.replace(/^/gm, '        ')}`);
    // Even with the speech and realtime engines set to load at start: a worker runs neither.
    expect(tree.processes, detail).to.have.length(1);
    expect(megabytes(tree.rssBytes), detail).to.be.below(WORKER_IDLE_RSS_BOUND_MB);
    const ready = await getJson(`${worker.url}/readyz`, null);
    expect(ready.status).to.equal(200);
    expect(JSON.stringify(ready.body)).to.contain('not loaded on a worker process');
  });
});
