import { readFileSync } from 'node:fs';

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux). 0 when unreadable. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command name), in clock ticks (100/s).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** Total CPU time of the machine (all cores, ms) and its idle part, from /proc/stat. */
export function machineCpu(): { total: number; idle: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = line.reduce((a, b) => a + b, 0) * 10;
  return { total, idle: (line[3]! + (line[4] ?? 0)) * 10 };
}
