import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { abortError } from '../../runtime/abort.js';
import { ffmpegPath } from './ffmpeg-path.js';

export interface RunFfmpegOptions {
  /** Arguments after the global ones (`-hide_banner -nostats -loglevel ...` are added first). */
  args: readonly string[];
  /** Bytes for ffmpeg's stdin (`pipe:0`); when absent stdin is closed at once and `-nostdin` is added. */
  stdin?: AsyncIterable<Uint8Array>;
  /**
   * Whole inputs on further pipes: the first is `pipe:3`, the next `pipe:4`... (written as soon as
   * they exist, ffmpeg reads them as it needs them; no temporary file). A promise lets ffmpeg start
   * before its input is known; if it rejects, the pipe is closed empty and ffmpeg's exit says why.
   */
  pipes?: ReadonlyArray<Uint8Array | Promise<Uint8Array>>;
  /** Killing ffmpeg and rejecting with an AbortError when it fires. */
  signal?: AbortSignal;
  /** ffmpeg's -loglevel; default `error` (stderr stays small and is the error message). */
  logLevel?: string;
  /** Most bytes of stderr kept (the tail); default 16 KiB. */
  maxStderrBytes?: number;
  /** Binary to run; defaults to the static build from @ffmpeg-installer/ffmpeg. */
  binary?: string;
  /** Called with the pid right after spawning (tests use it to check no process is left behind). */
  onSpawn?: (pid: number) => void;
}

/** ffmpeg ran and exited with a failure. `stderr` is the tail of what it printed. */
export class FfmpegError extends Error {
  constructor(
    readonly exitCode: number | null,
    readonly exitSignal: NodeJS.Signals | null,
    readonly stderr: string,
  ) {
    super(`ffmpeg failed (${exitSignal ?? `exit code ${exitCode}`}): ${stderr.trim().split('\n').slice(-3).join(' | ') || 'no message'}`);
    this.name = 'FfmpegError';
  }
}

type FfmpegChild = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * Runs ffmpeg as a streaming pipe and yields its stdout as it comes: no temporary files.
 *
 * - stdin is fed from an async iterable, honouring backpressure (waits for 'drain').
 * - stdout is pulled only as fast as the consumer iterates (the OS pipe then blocks ffmpeg, which
 *   stops reading stdin, which stops pulling the input iterable: end-to-end backpressure).
 * - Leaving the loop early (break / return() / a thrown error), aborting the signal, or a failing
 *   input iterable all kill ffmpeg with SIGKILL, and the generator only finishes once the process
 *   has exited: nothing is left behind.
 * - A non-zero exit becomes FfmpegError with the tail of stderr (bounded by maxStderrBytes).
 *
 * General on purpose: audio encode/decode use it, video muxing can too (pass any args; use
 * `pipe:0` / `pipe:1` for the piped ends).
 */
export async function* runFfmpeg(options: RunFfmpegOptions): AsyncGenerator<Uint8Array, void, undefined> {
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);

  const globalArgs = ['-hide_banner', '-nostats', '-loglevel', options.logLevel ?? 'error'];
  if (!options.stdin) globalArgs.push('-nostdin');
  const pipes = options.pipes ?? [];
  const child = spawn(options.binary ?? ffmpegPath(), [...globalArgs, ...options.args], {
    stdio: ['pipe', 'pipe', 'pipe', ...pipes.map(() => 'pipe' as const)],
  }) as unknown as FfmpegChild;
  pipes.forEach((bytes, i) => {
    const pipe = child.stdio[3 + i] as Writable;
    // ffmpeg closing it early (it failed, or needed no more) is reported by the exit code.
    pipe.on('error', () => undefined);
    void Promise.resolve(bytes).then(
      (input) => pipe.end(input),
      () => pipe.destroy(),
    );
  });

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError?: Error }>((resolve) => {
    child.once('error', (err) => resolve({ code: null, signal: null, spawnError: err }));
    child.once('close', (code, sig) => resolve({ code, signal: sig }));
  });
  if (child.pid !== undefined) options.onSpawn?.(child.pid);

  const stderr = new TailBuffer(options.maxStderrBytes ?? 16 * 1024);
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));

  let stopped = false;
  const kill = (): void => {
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const onAbort = (): void => kill();
  signal?.addEventListener('abort', onAbort, { once: true });

  // An input failure (e.g. the synthesizer upstream threw) kills ffmpeg and is rethrown below.
  let inputError: unknown = null;
  if (options.stdin) {
    feedStdin(options.stdin, child, () => stopped).catch((err: unknown) => {
      inputError = err;
      kill();
    });
  } else {
    child.stdin.end();
  }
  // Writing to a pipe ffmpeg already closed (it exits on bad input) is reported by the exit code.
  child.stdin.on('error', () => undefined);

  let finished = false;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      if (signal?.aborted) throw abortError(signal);
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    const exit = await exited;
    // ffmpeg has read its input to the end (or given up on it): stop feeding without waiting for
    // a slow upstream; an input error raised before this point is already recorded.
    stopped = true;
    if (signal?.aborted) throw abortError(signal);
    if (inputError) throw inputError;
    if (exit.spawnError) throw exit.spawnError;
    if (exit.code !== 0) throw new FfmpegError(exit.code, exit.signal, stderr.toString());
    finished = true;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished) {
      kill();
      child.stdout.destroy();
      await exited;
    }
  }
}

/** Writes the input iterable to ffmpeg's stdin, waiting for 'drain' whenever the pipe is full. */
async function feedStdin(input: AsyncIterable<Uint8Array>, child: FfmpegChild, stopped: () => boolean): Promise<void> {
  const stdin = child.stdin;
  const closed = new Promise<void>((resolve) => {
    stdin.once('close', resolve);
    stdin.once('error', () => resolve());
  });
  for await (const chunk of input) {
    if (stopped() || stdin.destroyed) return; // leaving the loop also ends (return()s) the input iterable
    if (chunk.byteLength === 0) continue;
    if (!stdin.write(chunk)) {
      await Promise.race([new Promise<void>((resolve) => stdin.once('drain', resolve)), closed]);
    }
  }
  if (!stdin.destroyed) stdin.end();
}

/** Keeps the last `max` bytes pushed into it. */
class TailBuffer {
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
