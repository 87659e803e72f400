import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { listenOnce, socketFolder, socketPath, type OneConnection } from '@svc/adapters-runtime';
import { processLauncher, type LaunchedChild, type ProcessLauncher } from '@svc/adapters-runtime';

/** How an ffmpeg run ended: its exit, the tail of its stderr, or why it never started. */
export interface FfmpegExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  spawnError?: Error;
}

/**
 * One running ffmpeg, however it was started: its input ends (stdin = `pipe:0`, then `pipe:3`,
 * `pipe:4`... in the arguments), its output (`pipe:1`) and its exit.
 */
export interface FfmpegProcess {
  /** Settles with the pid once ffmpeg runs (never, if it could not start: see `exited`). */
  readonly started: Promise<number>;
  /** An input end (0: stdin, `pipe:0`; 3, 4...: `pipe:3`...) once connected; null if ffmpeg ended first. */
  input(index: number): Promise<Writable | null>;
  /** What ffmpeg writes to `pipe:1`, as it comes. */
  readonly output: AsyncIterable<Buffer>;
  readonly exited: Promise<FfmpegExit>;
  /** Stops reading the output (the consumer left). */
  closeOutput(): void;
  kill(): void;
}

export interface StartFfmpegOptions {
  binary: string;
  args: readonly string[];
  /** Input ends besides stdin: `pipe:3`, `pipe:4`... */
  extraInputs: number;
  maxStderrBytes: number;
}

/**
 * Starts ffmpeg through the process launcher (no fork of this process: see process-launcher.ts),
 * its pipes replaced by Unix sockets it connects to; without a launcher, spawns it with pipes.
 */
export function startFfmpeg(options: StartFfmpegOptions): FfmpegProcess {
  const launcher = processLauncher();
  const dir = launcher ? socketFolder() : null;
  return launcher && dir ? new LaunchedFfmpeg(launcher, dir, options) : new SpawnedFfmpeg(options);
}

/** ffmpeg as a direct child with pipes (forks this process: the fallback). */
class SpawnedFfmpeg implements FfmpegProcess {
  readonly started: Promise<number>;
  readonly exited: Promise<FfmpegExit>;
  readonly output: AsyncIterable<Buffer>;
  private readonly child: ChildProcess;

  constructor(options: StartFfmpegOptions) {
    this.child = spawn(options.binary, [...options.args], {
      stdio: ['pipe', 'pipe', 'pipe', ...Array.from({ length: options.extraInputs }, () => 'pipe' as const)],
    });
    const stderr = new TailBuffer(options.maxStderrBytes);
    this.child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => resolve({ code: null, signal: null, stderr: stderr.toString(), spawnError: err }));
      this.child.once('close', (code, signal) => resolve({ code, signal, stderr: stderr.toString() }));
    });
    const pid = this.child.pid;
    this.started = pid !== undefined ? Promise.resolve(pid) : new Promise<number>(() => undefined);
    this.output = this.child.stdout!;
  }

  input(index: number): Promise<Writable | null> {
    return Promise.resolve(this.child.stdio[index] as Writable);
  }

  closeOutput(): void {
    this.child.stdout!.destroy();
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** Demuxers that read a stream as it comes, without seeking (see LaunchedFfmpeg). */
const RAW_FORMATS = new Set(['rawvideo', 's16le', 'f32le', 'u8', 'mulaw', 'alaw']);

/** The `-f` given to the input whose `-i` is at `at` (looking back to the previous input), if any. */
function inputFormat(args: readonly string[], at: number): string | undefined {
  for (let j = at - 1; j >= 0 && args[j] !== '-i'; j--) if (args[j] === '-f') return args[j + 1];
  return undefined;
}

/** How long an exited ffmpeg's not-yet-accepted connections are still waited for (ordering of events). */
const LATE_CONNECTION_MS = 50;

/** ffmpeg started by the launcher: each `pipe:N` becomes a Unix socket this process listens on. */
class LaunchedFfmpeg implements FfmpegProcess {
  readonly started: Promise<number>;
  readonly exited: Promise<FfmpegExit>;
  readonly output: AsyncIterable<Buffer>;
  private readonly ends = new Map<number, OneConnection>();
  private readonly launched: Promise<LaunchedChild>;
  private outputSocket: Socket | null = null;
  private outputClosed = false;

  constructor(launcher: ProcessLauncher, dir: string, options: StartFfmpegOptions) {
    const used = [0, 1, ...Array.from({ length: options.extraInputs }, (_, i) => 3 + i)];
    const paths = new Map<number, string>();
    const path = (n: number): string => paths.get(n) ?? paths.set(n, socketPath(dir, `ffmpeg-${n}`)).get(n)!;
    // Its own stdin is /dev/null (keyboard commands off); its data comes over the sockets. A
    // protocol whitelist that allowed `pipe` allows `async` and `unix` instead, nothing more (a
    // decode's whitelist keeps an uploaded playlist from opening files or URLs: it still does).
    const args = ['-nostdin', ...options.args.filter((arg) => arg !== '-nostdin')].map((arg, i, all) => {
      if (all[i - 1] === '-protocol_whitelist')
        return arg
          .split(',')
          .map((p) => (p === 'pipe' ? 'async,unix' : p))
          .join(',');
      const m = /^pipe:(\d+)$/.exec(arg);
      if (!m || !used.includes(Number(m[1]))) return arg;
      // A container input is read through `async:` (a reader thread and a buffer): `unix:` alone
      // reports a seekable input, and the WAV demuxer then stopped a 144 KB input after 78 KB, every
      // time. Raw inputs (frames, PCM) never seek and stay direct, so backpressure reaches the writer.
      const raw = all[i - 1] === '-i' && RAW_FORMATS.has(inputFormat(all, i - 1) ?? '');
      return `${m[1] === '1' || raw ? '' : 'async:'}unix:${path(Number(m[1]))}`;
    });
    for (const n of used) if (args.some((arg) => arg.endsWith(`unix:${path(n)}`))) this.ends.set(n, listenOnce(path(n)));

    const launched = launcher.launch(options.binary, args);
    this.launched = launched;
    this.started = launched.then((child) => child.pid);
    this.started.catch(() => undefined);
    this.exited = launched
      .then(
        (child) => child.exited,
        (err: Error): FfmpegExit => ({ code: null, signal: null, stderr: '', spawnError: err }),
      )
      .then((exit) => {
        const tail = exit.stderr.length > options.maxStderrBytes ? exit.stderr.slice(-options.maxStderrBytes) : exit.stderr;
        // A connection made just before the exit may not have been accepted yet: wait a moment.
        setTimeout(() => {
          for (const end of this.ends.values()) end.close();
        }, LATE_CONNECTION_MS).unref();
        return { ...exit, stderr: tail };
      });
    this.output = this.readOutput();
  }

  /** Kills it as soon as it runs (at once if it already does). */
  kill(): void {
    void this.launched.then(
      (child) => child.kill('SIGKILL'),
      () => undefined,
    );
  }

  input(index: number): Promise<Writable | null> {
    return this.ends.get(index)?.socket ?? Promise.resolve(null);
  }

  closeOutput(): void {
    this.outputClosed = true;
    this.outputSocket?.destroy();
    this.ends.get(1)?.close();
  }

  private async *readOutput(): AsyncGenerator<Buffer, void, undefined> {
    const socket = await (this.ends.get(1)?.socket ?? Promise.resolve(null));
    if (!socket || this.outputClosed) {
      socket?.destroy();
      return;
    }
    this.outputSocket = socket;
    yield* socket as AsyncIterable<Buffer>;
  }
}

/** Keeps the last `max` bytes pushed into it. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= this.max) this.size -= this.chunks.shift()!.length;
  }

  toString(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.max)).toString('utf8');
  }
}
