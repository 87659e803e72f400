// @test-tier light: a real SIP phone's call in real time
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import type { SipCall } from '@svc/adapters-sip';
import { hasBaresip, loudest } from '../helpers/baresip.js';
import { nextCall, sipServerForSuite } from '../helpers/sip-server.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');

/** The shell blocks of docs/sip.md's "Trying it with a softphone", as a reader pastes them. */
function softphoneBlocks(): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'sip.md'), 'utf8');
  const section = /^## Trying it with a softphone\n([\s\S]*?)^## /m.exec(doc)?.[1] ?? '';
  return [...section.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/**
 * Starts a block in `dir` with `home` as ~ and the server's SIP port for 5060; the phone's dial,
 * which runs until stopped, is given `dialSeconds` (timed out in the block's process group, which
 * `stop` signals; timeout's own group would outlive it). `printed` resolves with what it printed when it
 * is over; `stop` ends it (the phone hangs up) and all it started.
 */
function runBlock(
  block: string,
  env: Record<string, string>,
  dir: string,
  sipPort: number,
  dialSeconds: number,
): { printed: Promise<string>; stop(): void } {
  const script = block
    .replace(/127\.0\.0\.1:5060/g, `127.0.0.1:${sipPort}`)
    .replace(/^baresip (.*\/dial .*)$/m, `timeout --foreground ${dialSeconds} baresip $1 </dev/null`);
  const child = spawn('bash', ['-o', 'pipefail', '-c', script], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // already over
    }
  };
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const kill = setTimeout(() => signal('SIGKILL'), (dialSeconds + 30) * 1000);
  const printed = new Promise<string>((done) =>
    child.on('close', () => {
      clearTimeout(kill);
      done(output);
    }),
  );
  return { printed, stop: () => signal('SIGTERM') };
}

/** Samples of a 16-bit PCM WAV file (its data chunk). */
function wavSamples(file: string): Int16Array {
  const bytes = readFileSync(file);
  const at = bytes.indexOf('data') + 8;
  const data = bytes.subarray(at, at + Math.floor((bytes.length - at) / 2) * 2);
  return new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
}

describe("SIP phone calls: docs/sip.md's softphone recipe, as pasted, against the real server", function () {
  this.timeout(180_000);
  const sip = sipServerForSuite();
  let dir: string;
  let env: Record<string, string>;

  before(function () {
    if (!hasBaresip()) return this.skip();
    dir = mkdtempSync(join(tmpdir(), 'svc-softphone-'));
    mkdirSync(join(dir, 'home'));
    env = {
      HOME: join(dir, 'home'),
      BASE: sip.t.baseUrl,
      KEY: sip.keySecret,
      // ffmpeg as a reader has it (Debian's, or npm's copy)
      PATH: `${dirname(ffmpeg.path)}${delimiter}${process.env.PATH ?? ''}`,
    };
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the setup block: the phone (loopback, a local account) gets its call answered', async () => {
    const blocks = softphoneBlocks();
    expect(blocks, 'the setup and the no-sound-card blocks').to.have.length(2);
    const answered = nextCall(sip.t, 40_000);
    const phone = runBlock(blocks[0]!, env, dir, sip.t.server.sip!.server.address.port, 30);
    try {
      expect((await answered).id).to.match(/^rtc_/);
    } catch (err) {
      phone.stop();
      console.log((await phone.printed).slice(-3000));
      throw err;
    }
    phone.stop();
    await phone.printed;
  });

  it('the no-sound-card block: the phone says the WAV, hears a spoken reply, and hangs up when its file ends', async () => {
    const answered = nextCall(sip.t, 40_000);
    const phone = runBlock(softphoneBlocks()[1]!, env, dir, sip.t.server.sip!.server.address.port, 60);
    let output = '';
    try {
      const call = await answered;
      const answeredAt = performance.now();
      const ending = await new Promise<string>((r) => call.onEnded((e) => r(e)));
      const seconds = (performance.now() - answeredAt) / 1000;
      phone.stop();
      output = await phone.printed;
      // the phone hung up itself when its file (20 s) ended, not when it was stopped
      expect(ending).to.equal('hangup');
      expect(seconds, 'seconds from the answer to the hang-up').to.be.within(15, 30);
      expect(output).to.include('aufile: end of file');
      expect(call.rtp.packetsReceived, 'RTP packets from the phone').to.be.above(500);
      const heard = readdirSync(dir).find((f) => /^dump-.*-dec\.wav$/.test(f));
      expect(heard, 'the recording of what the phone heard').to.be.a('string');
      expect(loudest(wavSamples(join(dir, heard!))), 'the loudest 200 ms the phone heard (the reply)').to.be.above(500);
    } catch (err) {
      phone.stop();
      console.log((output || (await phone.printed)).slice(-3000));
      throw err;
    }
  });
});
