import { expect } from 'chai';
import { InProcessJobQueue } from '../../src/video/index.js';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('InProcessJobQueue', () => {
  it('runs at most `concurrency` jobs at once, a waiting id only once', async () => {
    const queue = new InProcessJobQueue(2);
    let active = 0;
    let peak = 0;
    const done: string[] = [];
    await queue.consume('q', async (id) => {
      active++;
      peak = Math.max(peak, active);
      await tick(10);
      active--;
      done.push(id);
    });
    for (const id of ['a', 'b', 'c', 'd', 'e', 'c']) await queue.enqueue('q', id);
    expect(queue.size).to.deep.equal({ waiting: 3, running: 2 });
    while (done.length < 5) await tick();
    expect(peak).to.equal(2);
    expect(done).to.have.members(['a', 'b', 'c', 'd', 'e']);
    await queue.close();
  });

  it('holds jobs enqueued before a consumer exists, and a failing handler does not stop the pool', async () => {
    const queue = new InProcessJobQueue(1);
    await queue.enqueue('q', 'x');
    await queue.enqueue('q', 'y');
    const seen: string[] = [];
    await queue.consume('q', async (id) => {
      seen.push(id);
      if (id === 'x') throw new Error('boom');
    });
    while (seen.length < 2) await tick();
    expect(seen).to.deep.equal(['x', 'y']);
    await queue.close();
  });

  it('close() aborts running handlers, waits for them and drops what waits', async () => {
    const queue = new InProcessJobQueue(1);
    let aborted = false;
    let finished = false;
    const started: string[] = [];
    await queue.consume('q', async (id, signal) => {
      started.push(id);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      aborted = signal.aborted;
      await tick(10);
      finished = true;
    });
    await queue.enqueue('q', 'long');
    await queue.enqueue('q', 'never');
    await tick();
    await queue.close();
    expect({ aborted, finished, started }).to.deep.equal({ aborted: true, finished: true, started: ['long'] });
  });
});

describe('InProcessJobQueue with several consumers', () => {
  it('stopping one consumer aborts only its jobs; the queue keeps serving the others', async () => {
    const queue = new InProcessJobQueue(1);
    const seen: string[] = [];
    let abortedFirst = false;
    const stopFirst = await queue.consume('q', async (id, signal) => {
      seen.push(`first:${id}`);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      abortedFirst = true;
    });
    await queue.consume('q', async (id) => void seen.push(`second:${id}`));
    await queue.enqueue('q', 'a');
    await tick();
    await stopFirst();
    await queue.enqueue('q', 'b');
    while (seen.length < 2) await tick();
    expect({ abortedFirst, seen }).to.deep.equal({ abortedFirst: true, seen: ['first:a', 'second:b'] });
    await queue.close();
  });
});
