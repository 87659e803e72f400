import { expect } from 'chai';
import { healthRoutes, READINESS_CHECK_TIMEOUT_MS } from '../../src/system/system-routes.js';
import { startApp, type RunningApp } from '../support/http-app.js';

const never = () => new Promise<void>(() => undefined);
const after = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('/readyz: every check answers within its deadline', function () {
  this.timeout(20_000);
  let t: RunningApp;
  afterEach(() => t?.close());

  it('answers 503 naming a dependency that never answers, within the deadline, with the other checks in', async () => {
    t = await startApp({
      public: [
        healthRoutes([
          { name: 'database', check: async () => undefined },
          { name: 'redis', check: never },
          { name: 'blob_store', check: never },
        ]),
      ],
    });
    const started = Date.now();
    const res = await fetch(`${t.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
    const took = Date.now() - started;
    expect(res.status).to.equal(503);
    const body = (await res.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).to.equal('not_ready');
    expect(body.checks.database).to.equal('ok');
    expect(body.checks.redis).to.equal(`failing: no answer within ${READINESS_CHECK_TIMEOUT_MS} ms`);
    expect(body.checks.blob_store).to.equal(`failing: no answer within ${READINESS_CHECK_TIMEOUT_MS} ms`);
    // The two silent checks wait side by side, not one after the other.
    expect(took).to.be.within(READINESS_CHECK_TIMEOUT_MS - 50, READINESS_CHECK_TIMEOUT_MS + 1_000);
  });

  it('runs the checks side by side: three slow ones take the time of one', async () => {
    const slow = Math.min(600, READINESS_CHECK_TIMEOUT_MS / 2);
    t = await startApp({ public: [healthRoutes([1, 2, 3].map((i) => ({ name: `dep${i}`, check: after(slow) })))] });
    const started = Date.now();
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).to.equal(200);
    expect(Date.now() - started).to.be.below(2 * slow);
  });
});
