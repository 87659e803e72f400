import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ProcessLauncher } from '../src/process-launcher.js';

/** The parent pid of a running process, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** True once `pid` has exited (no such process, or a zombie its new parent has not reaped yet). */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/** Minor page faults this process takes while writing every page of `buffer` once. */
function faultsRewriting(buffer: Buffer): number {
  const before = process.resourceUsage().minorPageFault;
  for (let i = 0; i < buffer.length; i += 4096) buffer[i] = (buffer[i]! + 1) & 0xff;
  return process.resourceUsage().minorPageFault - before;
}

describe('ProcessLauncher (children started without forking this process)', function () {
  this.timeout(20000);
  let launcher: ProcessLauncher;
  beforeEach(() => (launcher = new ProcessLauncher()));
  afterEach(() => launcher.close());

  it('starts a child and reports its pid, exit code and the tail of its stderr', async () => {
    const child = await launcher.launch('/bin/sh', ['-c', 'echo "something failed" >&2; exit 3']);
    expect(child.pid).to.be.a('number').greaterThan(0);
    const exit = await child.exited;
    expect(exit).to.deep.equal({ code: 3, signal: null, stderr: 'something failed\n' });
  });

  it('kills a child on request and reports the signal', async () => {
    const child = await launcher.launch('/bin/sleep', ['30']);
    child.kill('SIGKILL');
    const exit = await child.exited;
    expect(exit.signal).to.equal('SIGKILL');
  });

  it('rejects a child that cannot start like spawn does (ENOENT)', async () => {
    const err = await launcher.launch('/nonexistent/binary', []).then(
      () => null,
      (e: NodeJS.ErrnoException) => e,
    );
    expect(err?.code).to.equal('ENOENT');
  });

  it('a launcher that dies takes its running children with it, and the next launch starts a new one', async () => {
    const child = await launcher.launch('/bin/sleep', ['30']);
    const launcherPid = parentOf(child.pid);
    expect(launcherPid).to.not.equal(process.pid);
    process.kill(launcherPid, 'SIGKILL');
    const exit = await child.exited;
    expect(exit.signal).to.equal('SIGKILL');
    expect(await goneWithin(child.pid, 2000), 'the child outlived its launcher').to.equal(true);
    const next = await launcher.launch('/bin/sleep', ['0.3']);
    expect(parentOf(next.pid)).to.not.equal(launcherPid);
    expect((await next.exited).code).to.equal(0);
  });

  it('starting a child costs this process no copy-on-write faults; spawn() (a fork) does', async () => {
    await (
      await launcher.launch('/bin/true', [])
    ).exited; // the launcher itself: the one fork
    const buffer = Buffer.alloc(64 * 1024 * 1024, 1); // 16,384 pages, all written
    faultsRewriting(buffer);
    expect(faultsRewriting(buffer)).to.be.lessThan(200); // settled: rewriting costs nothing

    await (
      await launcher.launch('/bin/true', [])
    ).exited;
    const afterLaunch = faultsRewriting(buffer);

    await new Promise((resolve) => spawn('/bin/true').once('exit', resolve));
    const afterFork = faultsRewriting(buffer);

    expect(afterFork).to.be.greaterThan(8000); // the fork write-protected every page of the buffer
    expect(afterLaunch).to.be.lessThan(1000);
  });
});
