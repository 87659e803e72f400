// The process launcher's own process (see process-launcher.ts): a small Node process, forked once,
// that starts the service's child processes (ffmpeg) on its behalf. Forking a process copies its page
// tables and write-protects every page of it until written again; forking this small process instead
// of the service (hundreds of MB, many threads) costs the service nothing.
//
// Protocol on the IPC channel (JSON messages):
//   in:  { op: 'spawn', id, file, args }  |  { op: 'kill', id, signal }
//   out: { op: 'spawned', id, pid }  |  { op: 'exit', id, code, signal, stderr, error? }
// A child's stdin and stdout are /dev/null: its data goes over Unix sockets it connects to itself
// (ffmpeg's `unix:` protocol); its stderr's last bytes come back with its exit.
import { spawn, type ChildProcess } from 'node:child_process';

interface SpawnMessage {
  op: 'spawn';
  id: number;
  file: string;
  args: string[];
}
interface KillMessage {
  op: 'kill';
  id: number;
  signal: NodeJS.Signals;
}

/** Most bytes of a child's stderr sent back with its exit (the tail: where the error is). */
const STDERR_TAIL_BYTES = 16 * 1024;

const children = new Map<number, ChildProcess>();
const send = (message: object): void => {
  if (process.connected) process.send!(message);
};

process.on('message', (message: SpawnMessage | KillMessage) => {
  if (message.op === 'kill') {
    children.get(message.id)?.kill(message.signal);
    return;
  }
  if (message.op !== 'spawn') return;
  const { id } = message;
  const child = spawn(message.file, message.args, { stdio: ['ignore', 'ignore', 'pipe'] });
  children.set(id, child);
  let stderr = Buffer.alloc(0);
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = Buffer.concat([stderr, chunk]);
    if (stderr.length > 2 * STDERR_TAIL_BYTES) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
  });
  let reported = false;
  const exit = (code: number | null, signal: NodeJS.Signals | null, error?: NodeJS.ErrnoException): void => {
    if (reported) return;
    reported = true;
    children.delete(id);
    const tail = stderr.subarray(Math.max(0, stderr.length - STDERR_TAIL_BYTES)).toString('utf8');
    send({ op: 'exit', id, code, signal, stderr: tail, ...(error ? { error: { message: error.message, code: error.code } } : {}) });
  };
  child.once('spawn', () => send({ op: 'spawned', id, pid: child.pid }));
  child.once('error', (err) => exit(null, null, err));
  child.once('close', (code, signal) => exit(code, signal));
});

// The service is gone (exited, killed): its children go with it, then this process.
process.on('disconnect', () => {
  for (const child of children.values()) child.kill('SIGKILL');
  process.exit(0);
});
