// @test-tier light: waits on the S3 client's timeouts (about 15 s) and computes nothing
import { expect } from 'chai';
import { ServiceUnavailableError } from '@svc/core';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { S3_CONNECT_TIMEOUT_MS, S3_IDLE_TIMEOUT_MS, S3BlobStore } from '../../src/blob/s3-blob-store.js';

/**
 * An "S3" that accepts connections and never answers: a paused server, a load balancer whose backend
 * is gone, a network that drops packets. Without a deadline every blob read and write (and /readyz)
 * would wait on it forever.
 */
async function silentServer(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The outcome of `work` within `ms`: its error, 'answered', or 'still waiting'. */
async function within(work: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([
    work.then(
      () => 'answered',
      (err: unknown) => err,
    ),
    new Promise((resolve) => setTimeout(() => resolve(`still waiting after ${ms} ms`), ms).unref()),
  ]);
}

describe('S3BlobStore: a server that accepts connections and never answers', function () {
  this.timeout(60_000);
  let fake: Awaited<ReturnType<typeof silentServer>>;
  let store: S3BlobStore;
  before(async () => {
    fake = await silentServer();
    store = new S3BlobStore({
      bucket: 'svc',
      endpoint: fake.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    });
  });
  after(async () => {
    store.close();
    await fake.close();
  });

  it('fails checkWritable (/readyz), put and get with a timeout after the SDK three attempts, instead of hanging', async () => {
    expect(S3_CONNECT_TIMEOUT_MS).to.be.at.most(5_000);
    const started = Date.now();
    const outcomes = await Promise.all(
      [store.checkWritable(), store.put('voices/a.wav', new Uint8Array(1000)), store.get('voices/a.wav')].map((call) =>
        within(call, 40_000),
      ),
    );
    const took = Date.now() - started;
    // put and get: the service's 503 naming the blob store; checkWritable: the driver's own error (/readyz shows it).
    expect((outcomes[0] as Error).name, String(outcomes[0])).to.equal('TimeoutError');
    for (const outcome of outcomes.slice(1)) {
      expect(outcome, String(outcome)).to.be.instanceOf(ServiceUnavailableError);
      expect((outcome as ServiceUnavailableError).dependency).to.equal('blob store');
      expect(((outcome as Error).cause as Error).name).to.equal('TimeoutError');
    }
    // Three attempts, each cut after S3_IDLE_TIMEOUT_MS of silence (plus the SDK's short backoff).
    expect(took).to.be.within(S3_IDLE_TIMEOUT_MS, 4 * S3_IDLE_TIMEOUT_MS);
    console.log(`      failed after ${took} ms: ${(outcomes[0] as Error).message}`);
  });
});
