import { expect } from 'chai';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSystemBlobStore } from '../../src/blob/filesystem-blob-store.js';

describe('FileSystemBlobStore (real files)', () => {
  let dir: string;
  let store: FileSystemBlobStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-blob-'));
    store = new FileSystemBlobStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips bytes, reports existence and deletes', async () => {
    const data = new Uint8Array([1, 2, 3, 250]);
    await store.put('voices/key_1/voice_a.wav', data);
    expect(await store.exists('voices/key_1/voice_a.wav')).to.equal(true);
    expect(Array.from((await store.get('voices/key_1/voice_a.wav'))!)).to.deep.equal([1, 2, 3, 250]);
    await store.delete('voices/key_1/voice_a.wav');
    expect(await store.exists('voices/key_1/voice_a.wav')).to.equal(false);
    expect(await store.get('voices/key_1/voice_a.wav')).to.equal(null);
    await store.delete('voices/key_1/voice_a.wav'); // deleting twice is fine
  });

  it('a delete removes the folders it leaves empty (never the root, never a folder still in use)', async () => {
    await store.put('videos/key_1/video_a/ref_image', new Uint8Array(1));
    await store.put('videos/key_1/video_a/video.mp4', new Uint8Array(1));
    await store.put('videos/key_1/video_b/video.mp4', new Uint8Array(1));
    await store.delete('videos/key_1/video_a/ref_image');
    expect(readdirSync(join(dir, 'videos/key_1/video_a'))).to.deep.equal(['video.mp4']);
    await store.delete('videos/key_1/video_a/video.mp4');
    expect(readdirSync(join(dir, 'videos/key_1'))).to.deep.equal(['video_b'], 'the emptied folder of video_a is gone');
    await store.delete('videos/key_1/video_b/video.mp4');
    expect(readdirSync(dir)).to.deep.equal([], 'every emptied folder up to the root is gone; the root stays');
    await store.delete('videos/key_1/video_b/video.mp4'); // a missing key (and folder) is fine
    // A put right after the folder was removed creates it again.
    await store.put('videos/key_1/video_b/video.mp4', new Uint8Array([7]));
    expect(Array.from((await store.get('videos/key_1/video_b/video.mp4'))!)).to.deep.equal([7]);
  });

  it('a put racing a delete of the last file of its folder still lands', async () => {
    for (let i = 0; i < 50; i++) {
      await store.put('v/k/a', new Uint8Array(1));
      await Promise.all([store.delete('v/k/a'), store.put('v/k/b', new Uint8Array([i]))]);
      expect(Array.from((await store.get('v/k/b'))!)).to.deep.equal([i]);
      await store.delete('v/k/b');
    }
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it('leaves no temporary files behind', async () => {
    await store.put('a/b', new Uint8Array(10));
    await store.put('a/b', new Uint8Array(20));
    expect(readdirSync(join(dir, 'a'))).to.deep.equal(['b']);
    expect((await store.get('a/b'))!.length).to.equal(20);
  });

  it('refuses keys that would escape its root', async () => {
    for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/./b', 'a b']) {
      let failed = false;
      try {
        await store.put(key, new Uint8Array(1));
      } catch {
        failed = true;
      }
      expect(failed, key).to.equal(true);
    }
  });
});

describe('FileSystemBlobStore durability', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-blob-sync-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('fsyncs the file before its rename and the directory after it', async () => {
    const probe = await open(join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { sync(): Promise<void> };
    await probe.close();
    const original = proto.sync;
    const synced: string[] = [];
    proto.sync = async function (this: { fd: number }) {
      synced.push(readlinkSync(`/proc/self/fd/${this.fd}`));
      return original.call(this);
    };
    try {
      await new FileSystemBlobStore(dir).put('a/b.wav', new Uint8Array([1, 2]));
    } finally {
      proto.sync = original;
    }
    expect(synced).to.have.length(2);
    expect(synced[0]).to.match(/\/a\/b\.wav\.[0-9a-f]+\.tmp$/); // the data, under its temporary name
    expect(synced[1]).to.equal(join(dir, 'a')); // the directory holding the rename
  });

  it('checkWritable creates a missing root and fails when the root cannot be a directory', async () => {
    await new FileSystemBlobStore(join(dir, 'new-root')).checkWritable();
    expect(readdirSync(dir)).to.include('new-root');
    writeFileSync(join(dir, 'a-file'), 'x');
    let error: unknown;
    await new FileSystemBlobStore(join(dir, 'a-file')).checkWritable().catch((err) => (error = err));
    expect(String(error)).to.match(/EEXIST|ENOTDIR/);
  });
});
