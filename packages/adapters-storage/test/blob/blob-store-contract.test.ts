import { expect } from 'chai';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore, ListedBlob } from '@svc/core';
import { FileSystemBlobStore } from '../../src/blob/filesystem-blob-store.js';
import { S3BlobStore } from '../../src/blob/s3-blob-store.js';
import { S3RVER_CREDENTIALS, startS3rver } from './s3-target.js';

type Listable = BlobStore & { list(prefix: string): AsyncIterable<ListedBlob>; checkWritable(): Promise<void> };

async function listed(store: Listable, prefix: string): Promise<ListedBlob[]> {
  const out: ListedBlob[] = [];
  for await (const b of store.list(prefix)) out.push(b);
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/** What every BlobStore adapter must do, on a real store. */
function blobStoreContract(name: string, open: () => Promise<{ store: Listable; close(): Promise<void> }>): void {
  describe(`${name}: the BlobStore contract`, () => {
    let store: Listable;
    let close: () => Promise<void>;
    beforeEach(async () => ({ store, close } = await open()));
    afterEach(() => close());

    it('round-trips bytes (empty and 3 MB too), reports existence, deletes (twice is fine)', async () => {
      const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 7) % 251);
      await store.put('videos/k/v1/video.mp4', big);
      await store.put('videos/k/v1/empty', new Uint8Array(0));
      expect(await store.exists('videos/k/v1/video.mp4')).to.equal(true);
      expect(Buffer.from((await store.get('videos/k/v1/video.mp4'))!).equals(Buffer.from(big))).to.equal(true);
      expect((await store.get('videos/k/v1/empty'))!.length).to.equal(0);
      await store.put('videos/k/v1/video.mp4', new Uint8Array([9]));
      expect(Array.from((await store.get('videos/k/v1/video.mp4'))!)).to.deep.equal([9]);
      await store.delete('videos/k/v1/video.mp4');
      await store.delete('videos/k/v1/video.mp4');
      expect(await store.exists('videos/k/v1/video.mp4')).to.equal(false);
      expect(await store.get('videos/k/v1/video.mp4')).to.equal(null);
      expect(await store.get('never/written')).to.equal(null);
    });

    it('lists the keys under a prefix with their write times', async () => {
      const before = Date.now() - 2_000;
      for (const key of ['videos/a/1/x', 'videos/a/2/y', 'videos/b/3/z', 'voices/a/1/r']) await store.put(key, new Uint8Array([1]));
      const videos = await listed(store, 'videos/');
      expect(videos.map((b) => b.key)).to.deep.equal(['videos/a/1/x', 'videos/a/2/y', 'videos/b/3/z']);
      for (const b of videos) expect(b.modifiedAt).to.be.within(before, Date.now() + 2_000);
      expect((await listed(store, 'videos/a/')).map((b) => b.key)).to.deep.equal(['videos/a/1/x', 'videos/a/2/y']);
      expect(await listed(store, 'nothing/')).to.deep.equal([]);
    });

    it('refuses keys outside the shared alphabet, and answers readiness', async () => {
      for (const key of ['../x', 'a//b', 'a b', '/abs']) {
        const outcome = await store.put(key, new Uint8Array(1)).then(
          () => 'stored',
          (err: Error) => err.message,
        );
        expect(outcome, key).to.match(/Invalid blob key/);
      }
      await store.checkWritable();
    });
  });
}

blobStoreContract('FileSystemBlobStore (real files)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-blob-contract-'));
  return { store: new FileSystemBlobStore(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});

describe('S3BlobStore against s3rver (a real S3-compatible server process)', function () {
  this.timeout(60_000);
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  before(async () => {
    s3 = await startS3rver();
  });
  after(() => s3?.stop());

  let run = 0;
  blobStoreContract('S3BlobStore', async () => {
    const store = new S3BlobStore({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      bucket: s3.bucket,
      credentials: S3RVER_CREDENTIALS,
      forcePathStyle: true,
      keyPrefix: `run${++run}/`,
    });
    return { store, close: async () => store.close() };
  });

  it('readiness fails clearly for a bucket that does not exist', async () => {
    const store = new S3BlobStore({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      bucket: 'no-such-bucket',
      credentials: S3RVER_CREDENTIALS,
      forcePathStyle: true,
    });
    const outcome = await store.checkWritable().then(
      () => 'ok',
      (err: Error & { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode,
    );
    expect(outcome).to.equal(404);
    store.close();
  });
});

describe('FileSystemBlobStore lists interrupted writes too (the sweep removes them)', () => {
  it('a leftover temporary file is listed under its own name, with its age', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-blob-tmp-'));
    try {
      const store = new FileSystemBlobStore(dir);
      await store.put('videos/k/v/video.mp4', new Uint8Array([1]));
      await store.put('videos/k/v/video.mp4.ab12.tmp', new Uint8Array([1]));
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(join(dir, 'videos/k/v/video.mp4.ab12.tmp'), old, old);
      const blobs = await listed(store, 'videos/');
      expect(blobs.map((b) => b.key)).to.deep.equal(['videos/k/v/video.mp4', 'videos/k/v/video.mp4.ab12.tmp']);
      expect(blobs[1]!.modifiedAt).to.be.closeTo(old.getTime(), 1_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
