import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer } from 'node:net';
import { wavFile } from './wav.js';

/** Whether Debian's baresip is installed (scripts/setup-test-sip.sh); tests skip, saying so, without it. */
export function hasBaresip(): boolean {
  return spawnSync('baresip', ['-h'], { stdio: 'ignore' }).error === undefined;
}

/** 16 kHz speech to 8 kHz (a [1 2 1]/4 low-pass, then every other sample): what a phone's microphone sends. */
export function telephoneRate(samples16k: Int16Array): Int16Array {
  const out = new Int16Array(Math.floor(samples16k.length / 2));
  for (let i = 0; i < out.length; i++) {
    const a = samples16k[2 * i - 1] ?? 0;
    const b = samples16k[2 * i]!;
    const c = samples16k[2 * i + 1] ?? 0;
    out[i] = Math.round((a + 2 * b + c) / 4);
  }
  return out;
}

/** 16 kHz speech to 48 kHz (linear interpolation): an Opus phone's microphone, which baresip takes at the codec's rate. */
export function widebandRate(samples16k: Int16Array): Int16Array {
  const out = new Int16Array(samples16k.length * 3);
  for (let i = 0; i < out.length; i++) {
    const at = i / 3;
    const a = samples16k[Math.floor(at)]!;
    const b = samples16k[Math.min(Math.floor(at) + 1, samples16k.length - 1)]!;
    out[i] = Math.round(a + (b - a) * (at - Math.floor(at)));
  }
  return out;
}

/** A stereo WAV (the mono samples on both channels): baresip's Opus (opus/48000/2) takes two channels from its source. */
function stereoWav(mono: Int16Array, sampleRate: number): Buffer {
  const both = new Int16Array(mono.length * 2);
  for (let i = 0; i < mono.length; i++) both[2 * i] = both[2 * i + 1] = mono[i]!;
  const wav = wavFile(both, sampleRate);
  wav.writeUInt16LE(2, 22); // channels
  wav.writeUInt32LE(sampleRate * 4, 28); // bytes per second
  wav.writeUInt16LE(4, 32); // bytes per frame
  return wav;
}

export interface BaresipCall {
  /** Resolves when baresip has exited (after a hang-up from either side, or `stop()`). */
  exited: Promise<number | null>;
  /** Ends the call from the phone (SIGTERM: baresip sends BYE and closes its recordings). */
  stop(): Promise<void>;
  /** What the phone heard: the decoded 8 kHz samples of its recording (empty when none was made). */
  heard(): Int16Array;
  /** Everything baresip printed (SIP trace included), for failures. */
  output(): string;
  /** Runs a command of baresip's menu over its control socket (`ctrl_tcp`), e.g. `sndcode 123#` to press keys. */
  command(command: string, params?: string): Promise<void>;
  /** Resolves when baresip has printed something matching `pattern` (its SIP trace, its call states). */
  printed(pattern: RegExp, timeoutMs: number): Promise<void>;
  cleanup(): void;
}

export interface BaresipOptions {
  /** The service's SIP address. */
  host: string;
  port: number;
  /** Samples played as the microphone (baresip's aufile source), at `microphoneRate`. */
  microphone: Int16Array;
  /** The microphone's rate: baresip wants the first codec's (8000 for G.711, the default; 48000 for Opus, written in stereo). */
  microphoneRate?: number;
  /** Digest credentials, when the service asks. */
  auth?: { username: string; password: string };
  /** SIP over TCP instead of UDP. */
  tcp?: boolean;
  /** The codecs the phone offers, in its order of preference (default PCMU, PCMA). */
  codecs?: Array<'opus' | 'PCMU' | 'PCMA'>;
}

/** A free TCP port on loopback (for baresip's control socket). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A real SIP phone (baresip) placing one call to the service over loopback: its microphone is a
 * WAV file, what it hears is recorded by its sndfile module, its SIP trace printed (-s). The
 * phone binds loopback only and registers nowhere.
 */
export async function placeCall(options: BaresipOptions): Promise<BaresipCall> {
  const controlPort = await freePort();
  const codecs = options.codecs ?? ['PCMU', 'PCMA'];
  const dir = mkdtempSync(join(tmpdir(), 'svc-baresip-'));
  const mic = join(dir, 'microphone.wav');
  const rate = options.microphoneRate ?? 8000;
  writeFileSync(mic, rate === 48000 ? stereoWav(options.microphone, rate) : wavFile(options.microphone, rate));
  writeFileSync(
    join(dir, 'config'),
    [
      'poll_method epoll',
      'sip_listen 127.0.0.1:0',
      'audio_source aufile,' + mic,
      'audio_player aubridge,nowhere',
      'audio_alert aubridge,nowhere',
      'audio_srate 8000',
      'audio_channels 1',
      'rtp_ports 40000-40999',
      'module_path /usr/lib/baresip/modules',
      'module g711.so',
      ...(codecs.includes('opus') ? ['module opus.so'] : []),
      'module aufile.so',
      'module aubridge.so',
      'module sndfile.so',
      'module_app account.so',
      'module_app menu.so',
      'module_app ctrl_tcp.so',
      `ctrl_tcp_listen 127.0.0.1:${controlPort}`,
      `snd_path ${dir}`,
      '',
    ].join('\n'),
  );
  const auth = options.auth ? `;auth_user=${options.auth.username};auth_pass=${options.auth.password}` : '';
  writeFileSync(
    join(dir, 'accounts'),
    `<sip:phone@127.0.0.1>${auth};regint=0;audio_codecs=${codecs.map((c) => (c === 'opus' ? 'opus/48000/2' : c)).join(',')}\n`,
  );
  writeFileSync(join(dir, 'contacts'), '');
  const child: ChildProcess = spawn(
    'baresip',
    ['-f', dir, '-s', '-e', `/dial sip:svc@${options.host}:${options.port}${options.tcp ? ';transport=tcp' : ''}`, '-t', '60'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let printed = '';
  const watchers = new Set<() => void>();
  const onData = (d: Buffer) => {
    printed += d.toString();
    for (const w of [...watchers]) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    heard() {
      const dump = readdirSync(dir).find((f) => f.startsWith('dump-') && f.endsWith('-dec.wav'));
      if (!dump || !existsSync(join(dir, dump))) return new Int16Array(0);
      const wav = readFileSync(join(dir, dump));
      const data = wav.subarray(wav.indexOf('data') + 8);
      return new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.length & ~1)));
    },
    output: () => printed,
    command: (command, params) =>
      new Promise((resolve, reject) => {
        // ctrl_tcp speaks JSON in netstrings (length:payload,) and answers each command with one
        const json = JSON.stringify({ command, ...(params !== undefined ? { params } : {}), token: 'test' });
        const socket = connect(controlPort, '127.0.0.1', () => socket.write(`${Buffer.byteLength(json)}:${json},`));
        let answer = '';
        const deadline = setTimeout(() => {
          socket.destroy();
          reject(new Error(`baresip did not answer the command ${command} within 5 s`));
        }, 5_000);
        socket.on('data', (d: Buffer) => {
          answer += d.toString();
          if (!answer.includes('"response"')) return;
          clearTimeout(deadline);
          socket.destroy();
          resolve();
        });
        socket.on('error', (err) => {
          clearTimeout(deadline);
          reject(err);
        });
      }),
    printed: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(printed)) return;
          watchers.delete(check);
          clearTimeout(deadline);
          resolve();
        };
        const deadline = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`baresip did not print ${pattern} within ${timeoutMs} ms`));
        }, timeoutMs);
        watchers.add(check);
        check();
      }),
    cleanup() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What baresip prints when the other side ended the call (its BYE): "session closed: <reason>"
 * every time; "Call with <peer> terminated (duration: ...)" only when the call lasted a whole second
 * or more (its duration is counted in whole seconds, and a 0 prints no summary), which a call the
 * service ends at once does not.
 */
export const PHONE_CALL_CLOSED = /session closed|Call with \S+ terminated/;

/** Root-mean-square level of samples (0 for none). */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

/** The loudest window's root-mean-square level (200 ms windows at 8 kHz by default): speech stands well above silence. */
export function loudest(samples: Int16Array, windowSamples = 1600): number {
  const windows = Math.floor(samples.length / windowSamples);
  return Math.max(0, ...Array.from({ length: windows }, (_, i) => rms(samples.subarray(i * windowSamples, (i + 1) * windowSamples))));
}

/**
 * Runs `body` while the phone's call is up; on a failure prints the end of what the phone (and
 * `alsoPrint`: a proxy's log) said; the phone is stopped and its files removed either way.
 */
export async function duringCall<T>(phone: BaresipCall, body: () => Promise<T>, alsoPrint: () => string = () => ''): Promise<T> {
  try {
    return await body();
  } catch (err) {
    console.log(phone.output().slice(-3000), alsoPrint().slice(-3000));
    throw err;
  } finally {
    await phone.stop();
    phone.cleanup();
  }
}
