import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { BullMqJobQueue } from '../../src/redis/bullmq-job-queue.js';
import { describeWithRedis, testRedisUrl } from './redis-target.js';

const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await tick(20);
  }
}

describeWithRedis('BullMqJobQueue', () => {
  let prefix: string;
  const queues: BullMqJobQueue[] = [];
  const open = (concurrency = 1, lockMs = 2_000) => {
    const q = new BullMqJobQueue({ url: testRedisUrl!, prefix, concurrency, lockMs, maxDeliveries: 3 });
    queues.push(q);
    return q;
  };
  beforeEach(() => {
    prefix = `svc-test-${randomUUID()}`;
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
  });

  it('delivers each job id once, even when enqueued twice, and holds it only until it is done', async () => {
    const producer = open();
    const consumer = open(2);
    const done: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    await producer.enqueue('videos', 'video_a');
    await producer.enqueue('videos', 'video_a');
    await producer.enqueue('videos', 'video_b');
    expect(await producer.holds('videos', 'video_a')).to.equal(true);
    await consumer.consume('videos', async (id) => {
      await gate;
      done.push(id);
    });
    await tick(200);
    expect(await producer.holds('videos', 'video_b')).to.equal(true, 'a running job is held');
    release();
    await until(() => done.length === 2);
    expect(done).to.have.members(['video_a', 'video_b']);
    await until(async () => !(await producer.holds('videos', 'video_a')));
    expect(await producer.holds('videos', 'video_never')).to.equal(false);
  });

  it('a consumer that stops aborts its running job and puts it straight back for another consumer', async () => {
    // A lock far longer than the handover may take, so "at once" and "after the lock expired" are
    // told apart with room for a loaded machine.
    const lockMs = 20_000;
    const producer = open(1, lockMs);
    const first = open(1, lockMs);
    const second = open(1, lockMs);
    let aborted = false;
    const stopFirst = await first.consume(
      'videos',
      (_id, signal) =>
        new Promise<void>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('interrupted'));
          });
        }),
    );
    await producer.enqueue('videos', 'video_x');
    await until(async () => (await producer.holds('videos', 'video_x')) && !aborted);
    await tick(200);
    const started = Date.now();
    await stopFirst();
    expect(aborted).to.equal(true);
    const ranOn: string[] = [];
    await second.consume('videos', async (id) => void ranOn.push(id));
    await until(() => ranOn.length === 1);
    expect(ranOn).to.deep.equal(['video_x']);
    expect(Date.now() - started).to.be.below(lockMs / 2, 'taken at once, not after the lock expires');
  });

  it('a throwing handler is retried up to the delivery budget', async () => {
    const producer = open();
    const consumer = open();
    let calls = 0;
    await consumer.consume('videos', async () => {
      calls++;
      throw new Error('database down');
    });
    await producer.enqueue('videos', 'video_r');
    await until(() => calls === 3, 15_000);
    await tick(1_500);
    expect(calls).to.equal(3);
    expect(await producer.holds('videos', 'video_r')).to.equal(false);
  });
});
