import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { childrenCpuMs, procStat, statCpuMs } from '../../src/runtime/process-cpu.js';

/**
 * The capacity admission and the benchmarks read what the server's child processes cost from /proc.
 * The decoders and ffmpeg run under the process launcher (a child of the server): a live
 * grandchild's CPU must be counted, not only a child's.
 */
describe('childrenCpuMs: the CPU of the processes this one started, and of theirs (real /proc)', function () {
  this.timeout(20_000);

  it("counts a live grandchild's CPU (a decoder under the process launcher)", async () => {
    const before = childrenCpuMs(process.pid);
    // sh (the child) starts a busy loop (the grandchild) and waits for it; both live while measured.
    const parent = spawn('/bin/sh', ['-c', '( i=0; while :; do i=$((i+1)); done ) & child=$!; echo $child; sleep 2; kill $child; wait'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const grandchild = Number(await new Promise<string>((r) => parent.stdout.once('data', (d: Buffer) => r(d.toString()))));
    await new Promise((r) => setTimeout(r, 1500));
    // The baseline, read in this run: what the grandchild itself has used so far (on a loaded
    // machine it gets less than 1.5 s of CPU; the count must follow it, whatever it is).
    const own = statCpuMs(procStat(`/proc/${grandchild}/stat`) ?? []);
    const during = childrenCpuMs(process.pid) - before;
    await new Promise((r) => parent.once('exit', r));
    console.log(`      a busy grandchild for 1.5 s: ${during} ms of CPU counted, ${own} ms its own`);
    expect(own, 'the grandchild ran').to.be.greaterThan(0);
    expect(during).to.be.at.least(own);
  });
});
