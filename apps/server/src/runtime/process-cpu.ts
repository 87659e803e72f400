import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ is 100 on Linux: /proc times are in 10 ms ticks. */
const TICK_MS = 10;

/** Fields after the `(comm)` of a /proc stat line (index 0 is the state; utime is 11); null when gone. */
export function procStat(path: string): string[] | null {
  try {
    const stat = readFileSync(path, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime (ms) of a stat line's fields, plus its waited-for children's when `withChildren`. */
export function statCpuMs(fields: string[], withChildren = false): number {
  const ticks = Number(fields[11]) + Number(fields[12]) + (withChildren ? Number(fields[13]) + Number(fields[14]) : 0);
  return ticks * TICK_MS;
}

/**
 * CPU (ms) used so far by the processes `pid` started (the pocketsphinx decoders, ffmpeg), and
 * theirs: those run under the process launcher, a child of this process (runtime/process-launcher
 * in the inference adapters). The live ones are listed by each thread's /proc children file (no scan
 * of every process); those that exited count through their parent's cutime + cstime. 0 where there
 * is no /proc (not Linux): the process's own CPU is then all that is measured.
 */
export function childrenCpuMs(pid: number, depth = 3): number {
  const own = procStat(`/proc/${pid}/stat`);
  if (!own) return 0;
  let ms = (Number(own[13]) + Number(own[14])) * TICK_MS;
  for (const child of childPids(pid)) {
    const fields = procStat(`/proc/${child}/stat`);
    if (!fields) continue;
    ms += statCpuMs(fields);
    ms += depth > 1 ? childrenCpuMs(Number(child), depth - 1) : (Number(fields[13]) + Number(fields[14])) * TICK_MS;
  }
  return ms;
}

/** The live child processes of `pid`, whichever of its threads started them. */
export function childPids(pid: number): string[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const pids: string[] = [];
  for (const tid of tasks) {
    try {
      const list = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (list) pids.push(...list.split(' '));
    } catch {
      // thread gone, or a kernel without the children file
    }
  }
  return pids;
}

/** CPU (ms) used so far by this process and its children. */
export function ownTreeCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000 + childrenCpuMs(process.pid);
}
