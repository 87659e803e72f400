import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSystemBlobStore } from '../src/blob/filesystem-blob-store.js';
import { openDatabase } from '../src/data-source.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/**
 * The data the service keeps on disk (the SQLite file with every key's rows and the SIP digests, the
 * blobs: reference voices, faces, videos) is for the service's user only: with the usual umask 022 the
 * folders it created were world-readable, so any user of the machine could copy another key's cloned
 * voices and a SIP HA1 (which answers a digest challenge as the password would).
 */
describe('folders the service creates for its data are private (0700)', function () {
  this.timeout(30_000);
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-private-'));
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the SQLite file folder (and the data folder above it) when it does not exist', async () => {
    const db = await openDatabase({ url: 'sqlite:data/db/svc.sqlite', dataDir: dir });
    await db.destroy();
    expect(modeOf(join(dir, 'data')).toString(8)).to.equal('700');
    expect(modeOf(join(dir, 'data/db')).toString(8)).to.equal('700');
  });

  it('the blob root and its folders, made by the readiness check or by a put', async () => {
    await new FileSystemBlobStore(join(dir, 'checked')).checkWritable();
    expect(modeOf(join(dir, 'checked')).toString(8)).to.equal('700');
    await new FileSystemBlobStore(join(dir, 'blobs')).put('voices/key_a/voice_1', new Uint8Array([1]));
    for (const folder of ['blobs', 'blobs/voices', 'blobs/voices/key_a'])
      expect(modeOf(join(dir, folder)).toString(8), folder).to.equal('700');
  });

  it("an existing folder keeps the operator's mode", async () => {
    mkdirSync(join(dir, 'shared'), { mode: 0o750 });
    await new FileSystemBlobStore(join(dir, 'shared')).put('a/b', new Uint8Array([1]));
    expect(modeOf(join(dir, 'shared')).toString(8)).to.equal('750');
  });
});
