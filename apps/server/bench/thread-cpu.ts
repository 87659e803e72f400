import { spawn, type ChildProcess } from 'node:child_process';

/**
 * CPU time of a process's threads and of its descendants (ffmpeg, the decoders; the sampler, a child too, left out), sampled every few ms by a small
 * separate process (reading /proc from the server's own thread would be measured as its work).
 * From /proc/<pid>/task/<tid>/schedstat: ns on a CPU and ns waiting for one, per thread. Linux only.
 */
export interface CpuSample {
  /** performance.timeOrigin-based ms (Date.now() of the sample). */
  at: number;
  /** tid -> [ns on cpu, ns waiting on the run queue]; the main thread is the tid equal to the pid; children as 'child:<tid>'. */
  threads: Record<string, [number, number]>;
}

const SCRIPT = `
const fs = require('fs');
const pid = Number(process.argv[1]);
const read = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch { return null; } };
// Every descendant, not only direct children: ffmpeg and the decoders are started by the process
// launcher (a child of the server), so they are grandchildren.
const children = () => {
  const parentOf = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\\d+$/.test(d) || Number(d) === process.pid) continue; // not this sampler itself
    const stat = read('/proc/' + d + '/stat');
    if (stat) parentOf.set(d, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const out = [];
  let parents = new Set([pid]);
  while (parents.size > 0) {
    const next = new Set();
    for (const [d, ppid] of parentOf) if (parents.has(ppid)) { out.push(d); next.add(Number(d)); }
    parents = next;
  }
  return out;
};
let kids = [];
let n = 0;
setInterval(() => {
  if (n++ % 10 === 0) kids = children();
  const threads = {};
  const add = (proc, prefix) => {
    let tasks = [];
    try { tasks = fs.readdirSync('/proc/' + proc + '/task'); } catch { return; }
    for (const t of tasks) {
      const s = read('/proc/' + proc + '/task/' + t + '/schedstat');
      if (s) { const [run, wait] = s.split(' ').map(Number); threads[prefix + t] = [run, wait]; }
    }
  };
  add(pid, '');
  for (const k of kids) add(k, 'child:');
  process.stdout.write(JSON.stringify({ at: Date.now(), threads }) + '\\n');
}, Number(process.argv[2]));
`;

export class ThreadCpuSampler {
  private readonly child: ChildProcess;
  private buffer = '';
  readonly samples: CpuSample[] = [];

  constructor(pid = process.pid, everyMs = 5) {
    this.child = spawn(process.execPath, ['-e', SCRIPT, String(pid), String(everyMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => {
      this.buffer += d;
      let i;
      while ((i = this.buffer.indexOf('\n')) >= 0) {
        this.samples.push(JSON.parse(this.buffer.slice(0, i)) as CpuSample);
        this.buffer = this.buffer.slice(i + 1);
      }
    });
  }

  /**
   * CPU ms between two wall-clock times (Date.now()): the main thread, every other thread of the
   * process, the children (ffmpeg), and the main thread's wait for a core.
   */
  between(from: number, to: number): { main: number; threads: number; children: number; mainWaiting: number } {
    const at = (t: number) => this.samples.reduce<CpuSample | undefined>((best, s) => (s.at <= t ? s : best), undefined) ?? this.samples[0];
    const a = at(from);
    const b = at(to);
    const out = { main: 0, threads: 0, children: 0, mainWaiting: 0 };
    if (!a || !b) return out;
    for (const [tid, [run, wait]] of Object.entries(b.threads)) {
      const [run0, wait0] = a.threads[tid] ?? [0, 0];
      const ms = (run - run0) / 1e6;
      if (tid === String(process.pid)) {
        out.main += ms;
        out.mainWaiting += (wait - wait0) / 1e6;
      } else if (tid.startsWith('child:')) out.children += ms;
      else out.threads += ms;
    }
    return out;
  }

  stop(): void {
    this.child.kill();
  }
}
