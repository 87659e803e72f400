import { expect } from 'chai';
import { FfmpegError, runFfmpeg } from '../../src/index.js';
import { collect, isRunning } from './codec-helpers.js';

describe('runFfmpeg (the general ffmpeg pipe helper)', function () {
  this.timeout(30000);

  it('runs without stdin (lavfi source) and yields stdout', async () => {
    const bytes = await collect(
      runFfmpeg({ args: ['-f', 'lavfi', '-i', 'sine=f=440:d=1', '-ac', '1', '-ar', '8000', '-f', 's16le', 'pipe:1'] }),
    );
    expect(bytes.length).to.equal(16000);
  });

  it('turns a failing exit into FfmpegError with a bounded stderr tail', async () => {
    let error: unknown = null;
    try {
      await collect(runFfmpeg({ args: ['-f', 'nonexistent-format', '-i', 'pipe:0', 'pipe:1'], maxStderrBytes: 64 }));
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(FfmpegError);
    expect((error as FfmpegError).stderr.length).to.be.at.most(64);
    expect((error as FfmpegError).exitCode).to.not.equal(0);
  });

  it('kills a long-running ffmpeg when the consumer stops early', async () => {
    let pid = 0;
    for await (const chunk of runFfmpeg({
      args: ['-re', '-f', 'lavfi', '-i', 'sine=f=440:d=600', '-f', 's16le', 'pipe:1'],
      onSpawn: (p) => (pid = p),
    })) {
      if (chunk.length) break;
    }
    expect(pid).to.be.greaterThan(0);
    expect(isRunning(pid)).to.equal(false);
  });
});
