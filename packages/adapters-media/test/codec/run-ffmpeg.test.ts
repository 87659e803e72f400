import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { FfmpegError, runFfmpeg } from '../../src/index.js';
import { collect, isRunning } from '@svc/adapters-testing';

/** The parent pid of a running process, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

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

describe('runFfmpeg through the process launcher (children started without forking this process)', function () {
  this.timeout(20000);

  it("runFfmpeg runs ffmpeg as the launcher's child, its pipes as sockets, with the same output", async () => {
    let pid = 0;
    const pcm = Buffer.alloc(48000 * 2);
    for (let i = 0; i < 48000; i++) pcm.writeInt16LE(Math.round(8000 * Math.sin(i / 7)), i * 2);
    const chunks: Uint8Array[] = [];
    for await (const chunk of runFfmpeg({
      args: [
        '-f',
        's16le',
        '-ar',
        '48000',
        '-ac',
        '1',
        '-i',
        'pipe:0',
        '-f',
        'wav',
        '-i',
        'pipe:3',
        '-filter_complex',
        'amix=inputs=2',
        '-f',
        's16le',
        'pipe:1',
      ],
      stdin: (async function* () {
        yield pcm;
      })(),
      pipes: [Promise.resolve(wavOf(pcm, 48000))],
      onSpawn: (p) => (pid = p),
    })) {
      if (pid) expect(parentOf(pid), 'ffmpeg is not a child of this process').to.not.equal(process.pid);
      chunks.push(chunk);
    }
    expect(pid).to.be.greaterThan(0);
    expect(Buffer.concat(chunks).length).to.equal(pcm.length); // both inputs read whole (amix of two 1 s inputs: 1 s)
  });
});

function wavOf(pcm: Buffer, rate: number): Uint8Array {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
