import type { BlobStore } from '@svc/core';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Blobs as files under one root directory. Writes go to a temporary file first and are renamed
 * into place, so a crash never leaves a half-written blob under its real key.
 */
export class FileSystemBlobStore implements BlobStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const path = this.pathFor(key);
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, data);
    await rename(tmp, path);
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
    await rm(this.pathFor(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathFor(key))).isFile();
    } catch {
      return false;
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
