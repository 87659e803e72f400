import { readdirSync, readFileSync } from 'node:fs';

/** One process of a tree, as the kernel counts it (Linux /proc). */
export interface ProcessMemory {
  pid: number;
  /** The command line, shortened. */
  command: string;
  rssBytes: number;
  /**
   * Proportional set size: its own pages plus its share of pages it shares (forked speech decoders
   * share the model with their fork server, and RSS counts those pages in each).
   */
  pssBytes: number;
  threads: number;
}

/** A process and all its descendants (the server and its helper processes) with their resident memory. */
export interface ProcessTreeMemory {
  rssBytes: number;
  pssBytes: number;
  processes: ProcessMemory[];
}

const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null; // the process ended while it was read
  }
};

function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => (read(`/proc/${pid}/task/${tid}/children`) ?? '').split(/\s+/).filter(Boolean).map(Number));
}

/** Resident memory (VmRSS) and threads of `pid` and every process under it, read from /proc. */
export function processTreeMemory(pid: number): ProcessTreeMemory {
  const processes: ProcessMemory[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.shift()!;
    const status = read(`/proc/${current}/status`);
    if (!status) continue;
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    const threads = Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? 0);
    const command = (read(`/proc/${current}/cmdline`) ?? '').split('\0').join(' ').trim().slice(0, 120);
    const pssKb = Number(/^Pss:\s+(\d+)/m.exec(read(`/proc/${current}/smaps_rollup`) ?? '')?.[1] ?? kb);
    processes.push({ pid: current, command, rssBytes: kb * 1024, pssBytes: pssKb * 1024, threads });
    pending.push(...childrenOf(current));
  }
  const sum = (bytes: (p: ProcessMemory) => number) => processes.reduce((n, p) => n + bytes(p), 0);
  return { rssBytes: sum((p) => p.rssBytes), pssBytes: sum((p) => p.pssBytes), processes };
}

export const megabytes = (bytes: number): number => Math.round(bytes / 1048576);
