import { expect } from 'chai';
import { createServer, type AddressInfo } from 'node:net';
import { ServiceUnavailableError } from '@svc/core';
import { S3BlobStore } from '../../src/blob/s3-blob-store.js';
import { dependencyUnavailable } from '../../src/unavailable.js';

/** A loopback port nothing listens on: connections to it are refused (a stopped MinIO, s3rver...). */
async function refusedEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('S3BlobStore: a store that refuses connections', function () {
  this.timeout(20_000);
  let store: S3BlobStore;
  before(async () => {
    store = new S3BlobStore({
      bucket: 'svc',
      endpoint: await refusedEndpoint(),
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    });
  });
  after(() => store.close());

  it('fails reads and writes as the 503 of the blob store (not "its database does not answer", not a 500)', async () => {
    for (const call of [
      () => store.put('voices/a.wav', new Uint8Array(10)),
      () => store.get('voices/a.wav'),
      () => store.exists('voices/a.wav'),
      () => store.delete('voices/a.wav'),
    ]) {
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, String(err)).to.be.instanceOf(ServiceUnavailableError);
      expect((err as ServiceUnavailableError).dependency).to.equal('blob store');
      expect((err as Error).message).to.match(/its blob store does not answer/);
      expect(dependencyUnavailable(err)?.dependency).to.equal('blob store');
    }
  });

  it('keeps the driver error for readiness, so /readyz says what failed', async () => {
    const err = await store.checkWritable().then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.match(/ECONNREFUSED/);
  });
});
