import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { childrenCpuMs } from '../../src/runtime/process-cpu.js';

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
    const parent = spawn('/bin/sh', ['-c', '( i=0; while :; do i=$((i+1)); done ) & child=$!; sleep 2; kill $child; wait'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 1500));
    const during = childrenCpuMs(process.pid) - before;
    await new Promise((r) => parent.once('exit', r));
    console.log(`      a busy grandchild for 1.5 s: ${during} ms of CPU counted`);
    expect(during).to.be.greaterThan(400);
  });
});
