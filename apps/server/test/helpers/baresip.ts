import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

export interface BaresipCall {
  /** Resolves when baresip has exited (after a hang-up from either side, or `stop()`). */
  exited: Promise<number | null>;
  /** Ends the call from the phone (SIGTERM: baresip sends BYE and closes its recordings). */
  stop(): Promise<void>;
  /** What the phone heard: the decoded 8 kHz samples of its recording (empty when none was made). */
  heard(): Int16Array;
  /** Everything baresip printed (SIP trace included), for failures. */
  output(): string;
  /** Resolves when baresip has printed something matching `pattern` (its SIP trace, its call states). */
  printed(pattern: RegExp, timeoutMs: number): Promise<void>;
  cleanup(): void;
}

export interface BaresipOptions {
  /** The service's SIP address. */
  host: string;
  port: number;
  /** 8 kHz samples played as the microphone (baresip's aufile source). */
  microphone: Int16Array;
  /** Digest credentials, when the service asks. */
  auth?: { username: string; password: string };
  /** SIP over TCP instead of UDP. */
  tcp?: boolean;
}

/**
 * A real SIP phone (baresip) placing one call to the service over loopback: its microphone is a
 * WAV file, what it hears is recorded by its sndfile module, its SIP trace printed (-s). The
 * phone binds loopback only and registers nowhere.
 */
export function placeCall(options: BaresipOptions): BaresipCall {
  const dir = mkdtempSync(join(tmpdir(), 'svc-baresip-'));
  const mic = join(dir, 'microphone.wav');
  writeFileSync(mic, wavFile(options.microphone, 8000));
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
      'module aufile.so',
      'module aubridge.so',
      'module sndfile.so',
      'module_app account.so',
      'module_app menu.so',
      `snd_path ${dir}`,
      '',
    ].join('\n'),
  );
  const auth = options.auth ? `;auth_user=${options.auth.username};auth_pass=${options.auth.password}` : '';
  writeFileSync(join(dir, 'accounts'), `<sip:phone@127.0.0.1>${auth};regint=0;audio_codecs=PCMU,PCMA\n`);
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

/** Root-mean-square level of samples (0 for none). */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}
