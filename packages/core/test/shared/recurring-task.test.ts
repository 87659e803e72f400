import { expect } from 'chai';
import { repeatEvery } from '../../src/shared/recurring-task.js';
import { FakeClock } from '../fakes/fake-clock.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('repeatEvery (the recurring-task helper on the injected clock)', () => {
  it('runs first after firstMs, then everyMs after each run ends, on the clock it is given', async () => {
    const clock = new FakeClock(0);
    const runs: number[] = [];
    const task = repeatEvery(
      clock,
      { name: 'sweep', firstMs: 100, everyMs: 1000, onError: () => undefined },
      async () => void runs.push(clock.now()),
    );
    clock.advance(99);
    await tick();
    expect(runs).to.deep.equal([]);
    clock.advance(1);
    await tick();
    clock.advance(1000);
    await tick();
    clock.advance(1000);
    await tick();
    expect(runs).to.deep.equal([100, 1100, 2100]);
    await task.stop();
  });

  it('never overlaps runs: the next wait starts when a slow run ends', async () => {
    const clock = new FakeClock(0);
    let active = 0;
    let most = 0;
    let finish: () => void = () => undefined;
    const task = repeatEvery(clock, { name: 'slow', firstMs: 0, everyMs: 10, onError: () => undefined }, async () => {
      active++;
      most = Math.max(most, active);
      await new Promise<void>((resolve) => (finish = resolve));
      active--;
    });
    clock.advance(0);
    await tick();
    clock.advance(100); // the run is still going: nothing else may start
    await tick();
    expect(most).to.equal(1);
    finish();
    await tick();
    clock.advance(10);
    await tick();
    expect(most).to.equal(1);
    finish();
    await task.stop();
  });

  it('reports a failing run and keeps its schedule', async () => {
    const clock = new FakeClock(0);
    const errors: string[] = [];
    let calls = 0;
    const task = repeatEvery(
      clock,
      { name: 'purge', firstMs: 0, everyMs: 5, onError: (err, name) => errors.push(`${name}: ${(err as Error).message}`) },
      async () => {
        calls++;
        throw new Error('database down');
      },
    );
    for (let i = 0; i < 3; i++) {
      clock.advance(5);
      await tick();
    }
    expect(calls).to.equal(3);
    expect(errors).to.deep.equal(['purge: database down', 'purge: database down', 'purge: database down']);
    await task.stop();
  });

  it('stop() cancels the next run and waits for the one in progress', async () => {
    const clock = new FakeClock(0);
    let finish: () => void = () => undefined;
    let calls = 0;
    const task = repeatEvery(clock, { name: 'scan', firstMs: 0, everyMs: 1, onError: () => undefined }, async () => {
      calls++;
      await new Promise<void>((resolve) => (finish = resolve));
    });
    clock.advance(0);
    await tick();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await tick();
    expect(stopped, 'waits for the run in progress').to.equal(false);
    finish();
    await stopping;
    clock.advance(1000);
    await tick();
    expect(calls).to.equal(1);
  });
});
