import { expect } from 'chai';
import { EngineError } from '@svc/core';
import { WorkerPool } from '../src/index.js';

const SCRIPT = new URL('./counting-worker.js', import.meta.url);
type Pool = WorkerPool<number, { doubled: number; thread: number }>;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Threads only when work comes (create / warm), and gone again after an idle while (releaseAfterIdleMs). */
describe('WorkerPool: threads on first use, released when idle', function () {
  this.timeout(30000);
  const pools: Pool[] = [];
  const make = (options: Partial<Parameters<typeof WorkerPool.create>[0]> = {}): Pool => {
    const pool = WorkerPool.create<number, { doubled: number; thread: number }>({ name: 'counting', script: SCRIPT, size: 2, ...options });
    pools.push(pool);
    return pool;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  it('create() starts no thread; the first job starts the pool and is answered', async () => {
    const pool = make();
    expect(pool.started).to.equal(false);
    expect(pool.size).to.equal(0);
    const answers = await Promise.all([pool.run(1), pool.run(2), pool.run(3)]);
    expect(answers.map((a) => a.doubled)).to.deep.equal([2, 4, 6]);
    expect(pool.size, 'the whole pool started, not one thread per job').to.equal(2);
  });

  it('sequential jobs go to the thread idle the longest, so one that has just answered is not handed the next job at once', async () => {
    const pool = make();
    await pool.warm();
    const threads: number[] = [];
    for (let i = 0; i < 6; i++) threads.push((await pool.run(i)).thread);
    // Alternating: each job went to the other thread (the first idle slot every time before).
    for (let i = 1; i < threads.length; i++) expect(threads[i], threads.join(',')).to.not.equal(threads[i - 1]);
  });

  it("serves its askers in turn: one tenant's burst does not hold another's job behind all of it; each tenant's jobs in order", async () => {
    const pool = make({ size: 1 });
    await pool.warm();
    const order: string[] = [];
    const ask = (tenant: string, n: number) => pool.run(-(20 + n), { tenant }).then(() => order.push(`${tenant}${n}`));
    const burst = [1, 2, 3, 4, 5].map((n) => ask('a', n));
    const other = [1, 2].map((n) => ask('b', n));
    const anonymous = ask('', 1);
    await Promise.all([...burst, ...other, anonymous]);
    // a1 was running when the others came; then whoever was served longest ago (or never) goes first
    expect(order).to.deep.equal(['a1', 'b1', '1', 'a2', 'b2', 'a3', 'a4', 'a5']);
    // one asker alone: the queue's order
    const alone: number[] = [];
    await Promise.all([1, 2, 3].map((n) => pool.run(-(20 + n), { tenant: 'a' }).then(() => alone.push(n))));
    expect(alone).to.deep.equal([1, 2, 3]);
  });

  it('warm() starts the threads once (a job queued meanwhile shares that start) and resolves with the ready info', async () => {
    const pool = make();
    const warming = pool.warm();
    const job = pool.run(21);
    const info = (await warming) as { thread: number };
    expect(info.thread).to.be.a('number');
    expect((await job).doubled).to.equal(42);
    expect(pool.size).to.equal(2);
    expect(await pool.warm()).to.deep.equal(info);
  });

  it('releaseAfterIdleMs stops every thread after the pool has been idle that long; the next job starts them again', async () => {
    const pool = make({ releaseAfterIdleMs: 1500 });
    const first = await pool.run(1);
    expect(pool.size).to.equal(2);
    await wait(1000);
    // Work before the delay ran out postpones the release.
    await pool.run(2);
    await wait(1000);
    expect(pool.size, 'still within the idle delay of the last job').to.equal(2);
    await wait(2000);
    expect(pool.size, 'released').to.equal(0);
    expect(pool.started).to.equal(false);
    const again = await pool.run(5);
    expect(again.doubled).to.equal(10);
    expect(again.thread, 'a new thread').to.not.equal(first.thread);
  });

  it('release() stops the idle threads (once a start in progress has finished) and the pool still serves afterwards', async () => {
    const pool = make();
    await pool.run(1);
    await pool.release();
    expect(pool.size).to.equal(0);
    expect((await pool.run(4)).doubled).to.equal(8);
  });

  it('a start that fails fails the jobs that waited for it with the reason, and the next job tries again', async () => {
    const pool = make({ workerData: { failStart: true } });
    const failure = await pool.run(1).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(EngineError);
    expect(String((failure as Error).message))
      .to.contain('failed to start')
      .and.to.contain('no engine here');
    expect(pool.started).to.equal(false);
    const second = await pool.run(2).then(
      () => null,
      (err: unknown) => err,
    );
    expect(String((second as Error).message)).to.contain('no engine here');
  });

  it('start() still loads every thread before it returns', async () => {
    const { pool } = await WorkerPool.start<number, { doubled: number; thread: number }>({ name: 'counting', script: SCRIPT, size: 2 });
    pools.push(pool);
    expect(pool.size).to.equal(2);
    expect(pool.started).to.equal(true);
  });
});

/** close() answers the callers at once but lets a busy thread finish its job before terminating it. */
describe('WorkerPool: close() never terminates a thread in the middle of a job', function () {
  this.timeout(30000);

  it('rejects the job at once, and terminates its thread only once the job has ended (a native call must not complete into a dead thread)', async () => {
    const pool = WorkerPool.create<number, { doubled: number; thread: number }>({ name: 'counting', script: SCRIPT, size: 1 });
    await pool.warm();
    const job = pool.run(-400); // busy for 400 ms
    const order: string[] = [];
    const rejected = job
      .then(
        () => null,
        (err: unknown) => err,
      )
      .finally(() => order.push('caller answered'));
    await wait(50);
    const started = performance.now();
    const closing = pool.close().finally(() => order.push('thread terminated'));
    const err = await rejected;
    await closing;
    const closedAfter = performance.now() - started;
    expect(err).to.be.instanceOf(EngineError);
    expect(order, 'the caller is answered at once, before the job has ended').to.deep.equal(['caller answered', 'thread terminated']);
    // Fails on a close() that terminates at once (~5-30 ms): the thread is still in its job then.
    expect(closedAfter, 'the thread finished its job (~350 ms left) before it was terminated').to.be.at.least(250);
    expect(pool.size).to.equal(0);
  });

  it('a thread stuck in its job is terminated after the grace (2 s)', async () => {
    const pool = WorkerPool.create<number, { doubled: number; thread: number }>({ name: 'counting', script: SCRIPT, size: 1 });
    await pool.warm();
    pool.run(-60_000).catch(() => undefined);
    await wait(50);
    const started = performance.now();
    await pool.close();
    const closedAfter = performance.now() - started;
    expect(closedAfter).to.be.within(1900, 5000);
  });
});
