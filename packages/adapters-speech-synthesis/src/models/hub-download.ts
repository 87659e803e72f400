import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat, truncate, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { hubCallOptions, hubClient, hubError, ModelPullError, type HubConnection, type RemoteFile } from './hub-files.js';

export interface FileDownloadOptions {
  repo: string;
  commit: string;
  hub: HubConnection;
  /** No byte for this long: the attempt is given up (and retried). */
  stallTimeoutMs: number;
  /** Attempts after the first when the connection breaks or stalls; each resumes where the file stopped. */
  retries: number;
  /** Bytes of the file on disk so far (resumed bytes included), after each piece. */
  onBytes?: (bytes: number) => void;
  /** A broken attempt that will be resumed. */
  onRetry?: (reason: string, bytes: number) => void;
}

/**
 * Downloads one file of the repository at `commit` to `partPath`, resuming what is already there
 * (an HTTP Range request for the rest, through @huggingface/hub's blob, which fetches ranges), then
 * checks it against the hub's checksum. A mismatch deletes the file and throws `checksum`; a full
 * disk throws `disk_full` and keeps the bytes so far (a later pull resumes them). LFS files are
 * fetched over plain HTTP (`xet: false`): the resolve URL and its redirect, as every client can.
 */
export async function downloadHubFile(file: RemoteFile, partPath: string, options: FileDownloadOptions): Promise<void> {
  let have = (await stat(partPath).catch(() => null))?.size ?? 0;
  if (have > file.size) {
    await truncate(partPath, 0);
    have = 0;
  }
  for (let attempt = 0; have < file.size; attempt++) {
    try {
      have = await fetchRest(file, partPath, have, options);
    } catch (error) {
      if (error instanceof ModelPullError && error.reason !== 'stalled' && error.reason !== 'network') throw error;
      have = (await stat(partPath).catch(() => null))?.size ?? 0;
      if (attempt >= options.retries) {
        const why = error instanceof ModelPullError ? error.message : (error as Error).message;
        throw new ModelPullError(
          error instanceof ModelPullError ? error.reason : 'network',
          `${file.path}: ${why} (${attempt + 1} attempts; ${have} of ${file.size} bytes kept: run pull again to resume)`,
        );
      }
      options.onRetry?.((error as Error).message, have);
      await sleep(Math.min(2000, 200 * 2 ** attempt));
    }
  }
  const actual = await checksumOf(partPath, file.checksum.algorithm, file.size);
  if (actual !== file.checksum.hex) {
    await unlink(partPath).catch(() => undefined);
    throw new ModelPullError(
      'checksum',
      `${file.path}: ${file.checksum.algorithm} ${actual} does not match the hub's ${file.checksum.hex}: refused and deleted`,
    );
  }
}

/** One attempt: appends the bytes after `have` and returns the new size. */
async function fetchRest(file: RemoteFile, partPath: string, have: number, options: FileDownloadOptions): Promise<number> {
  const stall = new StallWatch(options.stallTimeoutMs);
  let blob: Blob | null;
  try {
    blob = await (
      await hubClient()
    ).downloadFile({
      repo: options.repo,
      path: file.path,
      revision: options.commit,
      ...hubCallOptions(options.hub),
      xet: false,
      fetch: stall.fetch,
    });
  } catch (error) {
    stall.stop();
    throw stall.fired ? stall.error() : hubError(error, `${file.path} in ${options.repo}`);
  }
  if (!blob) {
    stall.stop();
    throw new ModelPullError('not_found', `${options.repo} has no file ${file.path} (404)`);
  }
  const handle = await open(partPath, have > 0 ? 'a' : 'w');
  try {
    stall.arm();
    const reader = (have > 0 ? blob.slice(have) : blob).stream().getReader();
    for (;;) {
      const { done, value } = await reader.read().catch((error: Error) => {
        throw stall.fired ? stall.error() : new ModelPullError('network', `the connection broke (${error.message || String(error)})`);
      });
      if (done) break;
      await handle.write(value).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOSPC' || error.code === 'EDQUOT') {
          throw new ModelPullError(
            'disk_full',
            `the disk is full writing ${file.path} (${have} of ${file.size} bytes written, kept: free space, then run pull again to resume)`,
          );
        }
        throw error;
      });
      have += value.length;
      stall.arm();
      options.onBytes?.(have);
    }
  } finally {
    stall.stop();
    await handle.close();
  }
  return have;
}

/** Aborts the requests of one attempt when no byte arrives for `ms`; the hub client's fetch goes through it. */
class StallWatch {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  fired = false;

  constructor(private readonly ms: number) {
    this.arm();
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const range = new Headers(init?.headers).get('Range');
    const response = await fetch(input, { ...init, signal: this.controller.signal });
    // A server that ignores Range would have the whole file appended to the part already there.
    if (range && range !== 'bytes=0-0' && response.status === 200) {
      await response.body?.cancel();
      throw new ModelPullError('network', 'the server ignored the Range request (cannot resume)');
    }
    this.arm();
    return response;
  };

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort();
    }, this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  error(): ModelPullError {
    return new ModelPullError('stalled', `the hub sent nothing for ${(this.ms / 1000).toFixed(1)} s`);
  }
}

/** sha256 of the content, or git's blob id (sha1 of "blob <size>\0" + content). */
async function checksumOf(path: string, algorithm: 'sha256' | 'git-sha1', size: number): Promise<string> {
  const hash = createHash(algorithm === 'sha256' ? 'sha256' : 'sha1');
  if (algorithm === 'git-sha1') hash.update(`blob ${size}\0`);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
