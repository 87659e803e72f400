import { expect } from 'chai';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { ServiceUnavailableError } from '@svc/core';
import { openRedis, waitForRedis } from '../../src/redis/redis-connection.js';
import { dependencyUnavailable } from '../../src/unavailable.js';

/**
 * A "Redis" that accepts the connection and answers the client's handshake and ready check (INFO), then answers
 * nothing more: a Redis that is paused, swapping or behind a network that drops packets. Connected,
 * so ioredis's fail-fast rules (no offline queue) do not apply: only a command deadline does.
 */
async function silentRedis(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // The handshake: CLIENT SETINFO (ioredis 5.x) answered OK, the ready check's INFO answered; nothing else ever.
    socket.on('data', (data) => {
      const text = data.toString('latin1');
      for (const _ of text.matchAll(/\r\nclient\r\n/gi)) socket.write('+OK\r\n');
      if (/\r\ninfo\r\n/i.test(text)) {
        const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
        socket.write(`$${info.length}\r\n${info}\r\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

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
