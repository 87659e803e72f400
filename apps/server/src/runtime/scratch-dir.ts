import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Engines' scratch space (flite's work directories, pocketsphinx's utterance files) lives under the
 * data directory rather than the system temp directory: it is on the operator's volume, private
 * to the service, and what a kill -9 leaves behind is removed at the next start.
 */
export function scratchDirOf(dataDir: string): string {
  const dir = join(dataDir, 'tmp');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** At start-up, before any engine exists: whatever is in the scratch directory belongs to a dead process. */
export function clearScratchDir(dataDir: string): void {
  rmSync(join(dataDir, 'tmp'), { recursive: true, force: true });
}
