import { expect } from 'chai';
import { ServiceUnavailableError } from '@svc/core';
import { openRedis, waitForRedis } from '../../src/redis/redis-connection.js';
import { dependencyUnavailable } from '../../src/unavailable.js';
import { silentRedis } from './silent-redis.js';

describe('openRedis: a Redis that stops answering', function () {
  this.timeout(10_000);

  it('fails a command within seconds, as "redis unavailable" (503), instead of hanging', async () => {
    const fake = await silentRedis();
    const redis = openRedis(fake.url);
    try {
      await waitForRedis(redis);
      const started = Date.now();
      const outcome = await Promise.race([
        redis.ping().then(
          () => 'answered',
          (err: unknown) => err,
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting after 6 s'), 6_000).unref()),
      ]);
      expect(outcome, String(outcome)).to.be.instanceOf(Error);
      expect(Date.now() - started).to.be.at.most(4_000);
      const mapped = dependencyUnavailable(outcome);
      expect(mapped).to.be.instanceOf(ServiceUnavailableError);
      expect(mapped!.dependency).to.equal('redis');
    } finally {
      redis.disconnect();
      await fake.close();
    }
  });
});
