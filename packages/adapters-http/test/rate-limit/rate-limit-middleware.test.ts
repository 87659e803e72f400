import { expect } from 'chai';
import type { RateLimitDecision, RateLimiter } from '@svc/core';
import { rateLimitMiddleware } from '../../src/rate-limit/rate-limit-middleware.js';
import { errorOf, startApp, testRoute, type RunningApp } from '../support/http-app.js';

/** Answers with the decisions a test queues, and records the buckets it was asked for. */
class ScriptedLimiter implements RateLimiter {
  readonly asked: string[] = [];
  readonly decisions: RateLimitDecision[] = [];
  take(bucket: string): RateLimitDecision {
    this.asked.push(bucket);
    return this.decisions.shift() ?? { allowed: true, retryAfterSeconds: 0 };
  }
}

describe('rateLimitMiddleware: 429 in the REST error shape, with Retry-After', () => {
  const limiter = new ScriptedLimiter();
  let handled = 0;
  const limited = testRoute('post', '/limited', rateLimitMiddleware(limiter, 'speech'), (ctx) => void (ctx.body = { handled: ++handled }));
  let t: RunningApp;
  before(async () => {
    t = await startApp({ api: [limited] });
  });
  after(() => t.close());

  it("takes from the caller's bucket of this capability and lets an admitted request through", async () => {
    const res = await t.call('/limited', { method: 'POST' });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ handled: 1 });
    expect(limiter.asked).to.deep.equal(['speech:key_test']);
  });

  it('refuses with 429 rate_limit_exceeded and Retry-After in whole seconds (rounded up, at least 1), before the handler runs', async () => {
    for (const [retry, header] of [
      [2.2, '3'],
      [0.01, '1'],
      [60, '60'],
    ] as const) {
      limiter.decisions.push({ allowed: false, retryAfterSeconds: retry });
      const res = await t.call('/limited', { method: 'POST' });
      expect(res.status).to.equal(429);
      expect(res.headers.get('retry-after')).to.equal(header);
      expect(await errorOf(res)).to.deep.equal({
        message: `Rate limit reached for this API key; retry in ${header} s.`,
        type: 'rate_limit_exceeded',
        code: 'rate_limit_exceeded',
        param: null,
      });
    }
    expect(handled).to.equal(1);
  });
});
