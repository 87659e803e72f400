// Which child processes of this test process are running (not a test file itself).
import { readdirSync, readFileSync } from 'node:fs';

/**
 * PIDs of processes this one started (children, and theirs: ffmpeg runs under the process launcher,
 * the speech decoders under their fork server) whose command line contains `needle` or whose name is
 * `needle` (Linux /proc; zombies left out; the decoders name themselves svc-decoder).
 */
export function childProcesses(needle: string): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may contain spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z') parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // The process exited while being read.
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parentOf.get(pid), hops = 0; p !== undefined && hops < 8; p = parentOf.get(p), hops++) if (p === process.pid) return true;
    return false;
  };
  const found: number[] = [];
  for (const pid of parentOf.keys()) {
    if (!descends(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === needle || readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle))
        found.push(pid);
    } catch {
      // The process exited while being read.
    }
  }
  return found;
}
