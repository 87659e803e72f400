import type { BlobStore, ListedBlob } from '@svc/core';
import { access, constants, open, mkdir, readdir, readFile, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PRIVATE_FOLDER } from '../private-folder.js';

/**
 * Blobs as files under one root directory. Writes go to a temporary file first and are renamed
 * into place, so a crash never leaves a half-written blob under its real key. The file is fsynced before
 * the rename and its directory after it, so after a power loss a key names either the whole blob or
 * nothing (a rename alone can reach the disk before the data it points at). A delete removes the
 * folders it leaves empty (a deleted video or voice leaves no trace), so a put recreates its folder
 * when a delete of that folder's last file removed it under its feet.
 */
export class FileSystemBlobStore implements BlobStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const path = this.pathFor(key);
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    const file = await openInFolder(tmp);
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
    await syncDirectory(dirname(path));
  }

  /** Readiness: the root exists (created if missing) and this process may write to it. */
  async checkWritable(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: PRIVATE_FOLDER });
    await access(this.root, constants.W_OK);
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await readFile(this.pathFor(key)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathFor(key);
    await rm(path, { force: true });
    await this.removeEmptyFolders(dirname(path));
  }

  /** From `dir` up to (not including) the root, removes each folder while it is empty. */
  private async removeEmptyFolders(dir: string): Promise<void> {
    for (let folder = dir; folder.startsWith(this.root + sep); folder = dirname(folder)) {
      try {
        await rmdir(folder);
      } catch (err) {
        // Not empty (another file, or a put that just created it): it stays, and so do its parents.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        return;
      }
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathFor(key))).isFile();
    } catch {
      return false;
    }
  }

  /** Files under the prefix, temporary files of interrupted writes included (the sweep removes them). */
  async *list(prefix: string): AsyncIterable<ListedBlob> {
    const start = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    const stack = [start];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      let entries;
      try {
        entries = await readdir(join(this.root, dir), { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      for (const entry of entries) {
        const key = dir ? `${dir}/${entry.name}` : entry.name;
        if (entry.isDirectory()) stack.push(key);
        else if (entry.isFile() && key.startsWith(prefix)) {
          const info = await stat(join(this.root, key)).catch(() => null);
          if (info) yield { key, modifiedAt: info.mtimeMs };
        }
      }
    }
  }

  /** Keys are slash-separated names; anything escaping the root is refused. */
  private pathFor(key: string): string {
    if (!/^[A-Za-z0-9._\-/]+$/.test(key) || key.split('/').some((p) => p === '' || p === '.' || p === '..')) {
      throw new Error(`Invalid blob key '${key}'.`);
    }
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`Invalid blob key '${key}'.`);
    return path;
  }
}

/** Opens a new file for writing, creating its folder (again, if a delete just removed it as empty). */
async function openInFolder(path: string): Promise<FileHandle> {
  for (let attempt = 1; ; attempt++) {
    // The root too, when missing.
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_FOLDER });
    try {
      return await open(path, 'w');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw err;
    }
  }
}

/** Makes a rename in `dir` durable (POSIX: fsync the directory). */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
