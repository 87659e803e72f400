import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { processRunning } from '@svc/adapters-runtime';

/**
 * Engines' scratch space (flite's work directories, pocketsphinx's utterance files, the video
 * encoder's WAVs) lives under the data directory rather than the system temp directory: it is on
 * the operator's volume and private to the service. Each process gets its own folder
 * (`<dataDir>/tmp/p<pid>`), so several processes (or several containers in one test process) can
 * share a data directory without removing each other's files.
 */
export function scratchDirOf(dataDir: string): string {
  const dir = join(dataDir, 'tmp', `p${process.pid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * At start-up: what a dead process left (a kill -9 mid-synthesis) is removed. Folders of live
 * processes, this one's included, are kept.
 */
export function clearScratchDir(dataDir: string): void {
  const root = join(dataDir, 'tmp');
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return;
  }
  for (const name of entries) {
    const pid = /^p(\d+)$/.exec(name)?.[1];
    if (pid && processRunning(Number(pid))) continue;
    rmSync(join(root, name), { recursive: true, force: true });
  }
}
