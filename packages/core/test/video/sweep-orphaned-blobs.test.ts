import { expect } from 'chai';
import type { ListedBlob } from '../../src/shared/blob-store.js';
import { SweepOrphanedBlobs } from '../../src/shared/sweep-orphaned-blobs.js';
import { videoBlobKeyList, videoBlobOwner } from '../../src/video/video-blobs.js';
import { MemoryBlobStore } from '../fakes/index.js';
import { base64, pngBytes, speechBytes } from './video-fakes.js';
import { alice, HOUR, videoWorld } from './video-world.js';

/** The memory store with write times, so it can be listed. */
class ListableBlobStore extends MemoryBlobStore {
  written = new Map<string, number>();
  constructor(private readonly now: () => number) {
    super();
  }
  override async put(key: string, data: Uint8Array) {
    await super.put(key, data);
    this.written.set(key, this.now());
  }
  async *list(prefix: string): AsyncIterable<ListedBlob> {
    for (const key of [...this.blobs.keys()]) if (key.startsWith(prefix)) yield { key, modifiedAt: this.written.get(key)! };
  }
}

describe('SweepOrphanedBlobs with the video owner', () => {
  it('removes old blobs no job refers to, keeps every file of a live job, young blobs and other prefixes', async () => {
    const w = videoWorld();
    const blobs = new ListableBlobStore(() => w.clock.now());
    const live = { apiKeyId: alice.apiKeyId, id: 'video_live' };
    await w.jobs.insert({
      ...(await w.create.execute(alice, { ref_image: base64(pngBytes(800, 600)), input: base64(speechBytes(1)) })),
      id: live.id,
    });
    for (const key of videoBlobKeyList(live)) await blobs.put(key, new Uint8Array([1]));
    const orphans = videoBlobKeyList({ apiKeyId: alice.apiKeyId, id: 'video_gone' });
    for (const key of orphans) await blobs.put(key, new Uint8Array([2]));
    await blobs.put(`videos/${alice.apiKeyId}/${live.id}/video.mp4.3f2a.tmp`, new Uint8Array([3]));
    await blobs.put('voices/key_alice/v1/ref_1', new Uint8Array([4]));
    w.clock.advance(2 * HOUR);
    await blobs.put(`videos/${alice.apiKeyId}/video_young/ref_image`, new Uint8Array([5]));

    const sweep = new SweepOrphanedBlobs(blobs, [videoBlobOwner(w.jobs)], w.clock, HOUR, undefined, 2);
    expect(await sweep.execute()).to.equal(orphans.length + 1);
    expect([...blobs.blobs.keys()].sort()).to.deep.equal(
      [...videoBlobKeyList(live), `videos/${alice.apiKeyId}/video_young/ref_image`, 'voices/key_alice/v1/ref_1'].sort(),
    );
    expect(await sweep.execute()).to.equal(0);
  });

  it('does nothing on a store that cannot list', async () => {
    const w = videoWorld();
    const sweep = new SweepOrphanedBlobs(new MemoryBlobStore(), [videoBlobOwner(w.jobs)], w.clock, 0);
    expect(await sweep.execute()).to.equal(0);
  });
});
