// Which child processes of this test process are running (not a test file itself).
import { readdirSync, readFileSync } from 'node:fs';

/** PIDs of direct children of this process whose command line contains `needle` (Linux /proc). */
export function childProcesses(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(needle)) found.push(Number(entry));
    } catch {
      // The process exited while being read.
    }
  }
  return found;
}
