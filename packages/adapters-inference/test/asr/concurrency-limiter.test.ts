import { expect } from 'chai';
import { ConcurrencyLimiter } from '../../src/index.js';

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

describe('ConcurrencyLimiter', () => {
  it('runs at most `limit` tasks at once, the others in arrival order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        limiter.run(async () => {
          running++;
          most = Math.max(most, running);
          order.push(i);
          await tick();
          running--;
        }),
      ),
    );
    expect(most).to.equal(2);
    expect(order).to.deep.equal([0, 1, 2, 3, 4]);
    expect(limiter.load).to.deep.equal({ running: 0, waiting: 0 });
  });

  it('drops a waiting task whose signal aborts, and frees the slot of a failed task', async () => {
    const limiter = new ConcurrencyLimiter(1);
    let release!: () => void;
    const first = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run(async () => {
      ran = true;
    }, controller.signal);
    expect(limiter.load).to.deep.equal({ running: 1, waiting: 1 });
    controller.abort();
    let error: unknown;
    try {
      await waiting;
    } catch (err) {
      error = err;
    }
    expect((error as Error).name).to.equal('AbortError');
    expect(limiter.load.waiting).to.equal(0);
    release();
    await first;
    expect(ran).to.equal(false);
    let failed = false;
    await limiter.run(() => Promise.reject(new Error('boom'))).catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect(await limiter.run(async () => 'next')).to.equal('next');
  });
});
