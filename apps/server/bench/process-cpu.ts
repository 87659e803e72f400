import { readdirSync, readFileSync } from 'node:fs';
import { childrenCpuMs, procStat, statCpuMs } from '../src/runtime/process-cpu.js';

/** CPU time (ms) of a process, split the way the voice-loop benchmark reports it. */
export interface TreeCpu {
  /** The process itself (all its threads). */
  process: number;
  /** Its child processes (the pocketsphinx decoders), live ones plus those that exited. */
  children: number;
  /** The process's threads grouped by name (main event loop, worker threads, onnxruntime, libuv). */
  threads: Record<string, number>;
}

/** CPU used so far by `pid`, its child processes and each of its threads, from /proc (Linux only). */
export function treeCpu(pid: number): TreeCpu {
  const own = procStat(`/proc/${pid}/stat`);
  if (!own) return { process: 0, children: 0, threads: {} };
  const threads: Record<string, number> = {};
  for (const tid of safeReaddir(`/proc/${pid}/task`)) {
    const f = procStat(`/proc/${pid}/task/${tid}/stat`);
    if (!f) continue;
    // Worker threads are named by Node and libraries; numbered names are collapsed.
    const name = Number(tid) === pid ? 'main (event loop)' : threadName(`/proc/${pid}/task/${tid}/comm`).replace(/[-_ ]?\d+$/, '');
    threads[name] = (threads[name] ?? 0) + statCpuMs(f);
  }
  return { process: statCpuMs(own), children: childrenCpuMs(pid), threads };
}

function threadName(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '?';
  }
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** b - a, thread by thread. */
export function cpuSince(a: TreeCpu, b: TreeCpu): TreeCpu {
  const threads: Record<string, number> = {};
  for (const [name, ms] of Object.entries(b.threads)) threads[name] = ms - (a.threads[name] ?? 0);
  return { process: b.process - a.process, children: b.children - a.children, threads };
}
