import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { socketFolder, sweepLeftoverFolders } from '../src/child-sockets.js';

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn('/bin/true');
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('Child socket folders', () => {
  let parent: string;
  beforeEach(() => (parent = mkdtempSync(join(tmpdir(), 'sockets-test-'))));
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('removes the folders of processes that died without cleaning up, and only those', async () => {
    const sleeper = spawn('/bin/sleep', ['30']);
    try {
      const dead = join(parent, `svc-child-${await deadPid()}-AbC123`);
      mkdirSync(dead);
      writeFileSync(join(dead, 'stale-ffmpeg-3.sock'), ''); // a socket file its process never removed
      const alive = join(parent, `svc-child-${sleeper.pid}-XyZ789`);
      mkdirSync(alive);
      const mine = join(parent, `svc-child-${process.pid}-Own456`);
      mkdirSync(mine);
      const unnamed = join(parent, 'svc-child-Q1w2E3'); // the old naming: no pid to check, left alone
      mkdirSync(unnamed);
      const other = join(parent, 'something-else-1-x');
      mkdirSync(other);

      sweepLeftoverFolders(parent);

      expect(existsSync(dead), "a dead process's folder").to.equal(false);
      for (const kept of [alive, mine, unnamed, other]) expect(existsSync(kept), kept).to.equal(true);
    } finally {
      sleeper.kill();
    }
  });

  it("names this process's folder by its pid, private to this user, and makes it again if it is removed", () => {
    const dir = socketFolder();
    expect(dir).to.be.a('string');
    expect(dir!).to.include(`svc-child-${process.pid}-`);
    expect(statSync(dir!).mode & 0o777).to.equal(0o700);
    rmSync(dir!, { recursive: true, force: true }); // what a /tmp cleaner does to an idle server's folder
    const again = socketFolder();
    expect(again).to.be.a('string');
    expect(existsSync(again!)).to.equal(true);
    expect(socketFolder()).to.equal(again);
  });
});
