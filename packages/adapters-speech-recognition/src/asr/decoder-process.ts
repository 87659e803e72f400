import { spawn } from 'node:child_process';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { listenOnce, sharedLauncher, socketFolder, socketPath } from '@svc/adapters-runtime';

/** Forks decoders from one loaded model (see the script). */
const FORK_SERVER_SCRIPT = fileURLToPath(new URL('../../../python/decoder_fork_server.py', import.meta.url));

/** How a decoder process ended: its exit, the tail of its stderr, or why it never started. */
export interface DecoderExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  spawnError?: Error;
}

/** One pocketsphinx helper process: its request stream, its answer stream, its exit. */
export interface DecoderProcess {
  /** Requests (written at once; buffered until the process has connected, when launched). */
  readonly input: Writable;
  /** Answers, as text. */
  readonly output: Readable;
  readonly exited: Promise<DecoderExit>;
  /** The process id once it runs (the capacity probe reads its CPU time from /proc). */
  readonly pid: number | undefined;
  kill(): void;
}

/**
 * A decoder with these settings: forked, with its model already loaded, by the fork server for them
 * (python/decoder_fork_server.py, started on first use and shared by the process's servers; this
 * process is not forked for each decoder), talking over a Unix socket it connects to (`--socket
 * PATH`); or `python -u script ...args` spawned directly with pipes, loading its own model, when the
 * process launcher is off (`SVC_PROCESS_LAUNCHER=false`) or `direct` says so.
 */
export function startDecoderProcess(
  python: string,
  script: string,
  args: readonly string[],
  stderrTailChars: number,
  direct = false,
): DecoderProcess {
  const launcher = direct ? null : sharedLauncher({ file: python, args: ['-u', FORK_SERVER_SCRIPT, ...args] });
  const dir = launcher ? socketFolder() : null;
  if (!launcher || !dir) return spawned(python, script, args, stderrTailChars);

  const path = socketPath(dir, 'decoder');
  const connection = listenOnce(path);
  const input = new PassThrough();
  const output = new PassThrough();
  let pid: number | undefined;
  const launched = launcher.launch(python, ['--socket', path]);
  const exited = launched.then(
    (child) => {
      pid = child.pid;
      return child.exited;
    },
    (err: Error): DecoderExit => ({ code: null, signal: null, stderr: '', spawnError: err }),
  );
  void connection.socket.then((socket) => {
    if (!socket) return;
    input.pipe(socket);
    socket.pipe(output);
  });
  void exited.then(() => {
    connection.close();
    output.end();
  });
  return {
    input,
    output,
    exited: exited.then((exit) => ({ ...exit, stderr: exit.stderr.slice(-stderrTailChars) })),
    get pid() {
      return pid;
    },
    kill: () => {
      void launched.then(
        (child) => child.kill('SIGKILL'),
        () => undefined,
      );
    },
  };
}

function spawned(python: string, script: string, args: readonly string[], stderrTailChars: number): DecoderProcess {
  const child = spawn(python, ['-u', script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-stderrTailChars)));
  const exited = new Promise<DecoderExit>((resolve) => {
    child.once('error', (err) => resolve({ code: null, signal: null, stderr, spawnError: err }));
    child.once('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
  return {
    input: child.stdin,
    output: child.stdout,
    exited,
    get pid() {
      return child.pid;
    },
    kill: () => child.kill('SIGKILL'),
  };
}
