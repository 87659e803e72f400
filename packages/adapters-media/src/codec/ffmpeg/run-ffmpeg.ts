import type { Writable } from 'node:stream';
import { abortError } from '@svc/adapters-runtime';
import { startFfmpeg } from './ffmpeg-process.js';
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
 * ffmpeg is started by the process launcher (runtime/process-launcher.ts: this process is not forked)
 * with its pipes as Unix sockets, or spawned directly when the launcher is off (ffmpeg-process.ts).
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
  const ffmpeg = startFfmpeg({
    binary: options.binary ?? ffmpegPath(),
    args: [...globalArgs, ...options.args],
    extraInputs: pipes.length,
    maxStderrBytes: options.maxStderrBytes ?? 16 * 1024,
  });
  pipes.forEach((bytes, i) => {
    void ffmpeg.input(3 + i).then((pipe) => {
      if (!pipe) return;
      // ffmpeg closing it early (it failed, or needed no more) is reported by the exit code.
      pipe.on('error', () => undefined);
      void Promise.resolve(bytes).then(
        (input) => pipe.end(input),
        () => pipe.destroy(),
      );
    });
  });
  if (options.onSpawn) void ffmpeg.started.then(options.onSpawn, () => undefined);

  let stopped = false;
  const kill = (): void => {
    stopped = true;
    ffmpeg.kill();
  };
  const onAbort = (): void => kill();
  signal?.addEventListener('abort', onAbort, { once: true });

  // An input failure (e.g. the synthesizer upstream threw) kills ffmpeg and is rethrown below.
  let inputError: unknown = null;
  const stdin = ffmpeg.input(0);
  if (options.stdin) {
    feedStdin(options.stdin, stdin, () => stopped).catch((err: unknown) => {
      inputError = err;
      kill();
    });
  } else {
    void stdin.then((end) => end?.end());
  }

  let finished = false;
  try {
    for await (const chunk of ffmpeg.output) {
      if (signal?.aborted) throw abortError(signal);
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    const exit = await ffmpeg.exited;
    // ffmpeg has read its input to the end (or given up on it): stop feeding without waiting for
    // a slow upstream; an input error raised before this point is already recorded.
    stopped = true;
    if (signal?.aborted) throw abortError(signal);
    if (inputError) throw inputError;
    if (exit.spawnError) throw exit.spawnError;
    if (exit.code !== 0) throw new FfmpegError(exit.code, exit.signal, exit.stderr);
    finished = true;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished) {
      kill();
      ffmpeg.closeOutput();
      await ffmpeg.exited;
    }
  }
}

/** Writes the input iterable to ffmpeg's stdin, waiting for 'drain' whenever the pipe is full. */
async function feedStdin(input: AsyncIterable<Uint8Array>, end: Promise<Writable | null>, stopped: () => boolean): Promise<void> {
  const stdin = await end;
  if (!stdin) return;
  // Writing to a pipe ffmpeg already closed (it exits on bad input) is reported by the exit code.
  stdin.on('error', () => undefined);
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
