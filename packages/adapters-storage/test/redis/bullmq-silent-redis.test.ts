import { expect } from 'chai';
import { ServiceUnavailableError } from '@svc/core';
import { BullMqJobQueue } from '../../src/redis/bullmq-job-queue.js';
import { dependencyUnavailable } from '../../src/unavailable.js';
import { silentRedis } from './silent-redis.js';

describe('BullMqJobQueue: enqueue on a Redis that stops answering', function () {
  this.timeout(15_000);

  it('fails within seconds as "redis unavailable" (503) instead of holding the request', async () => {
    const fake = await silentRedis();
    const queue = new BullMqJobQueue({ url: fake.url, prefix: 'svc-test-silent', concurrency: 1, lockMs: 2_000, maxDeliveries: 2 });
    try {
      const started = Date.now();
      const outcome = await Promise.race([
        queue.enqueue('videos', 'video_silent').then(
          () => 'enqueued',
          (err: unknown) => err,
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000).unref()),
      ]);
      expect(outcome, String(outcome)).to.be.instanceOf(Error);
      expect(Date.now() - started).to.be.at.most(8_000);
      const mapped = dependencyUnavailable(outcome);
      expect(mapped, String(outcome)).to.be.instanceOf(ServiceUnavailableError);
      expect(mapped!.dependency).to.equal('redis');
    } finally {
      await queue.close();
      await fake.close();
    }
  });
});
