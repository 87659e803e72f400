import { fork, type ChildProcess } from 'node:child_process';

/**
 * Starts child processes (ffmpeg) without forking this process.
 *
 * Node's spawn() forks the calling process on Linux (libuv uses fork(), not vfork/posix_spawn). For
 * a service of 300-800 MB with a dozen threads that costs twice: the fork blocks the event loop while
 * the page tables are copied (15-300 ms measured here), and afterwards EVERY page any thread writes
 * takes a copy-on-write fault the first time. Measured in the server: the face detector's first SSD
 * run after one spawn took ~300 ms and 9,600 page faults instead of ~55 ms and none, so each video's
 * standby ffmpeg made the next new photo's face detection 4-5x slower.
 *
 * So a small launcher process (process-launcher-main.ts, forked once, lazily) does the spawning. The
 * children it starts have no pipes to this process: they connect to Unix sockets this process listens
 * on (ffmpeg's `unix:` protocol; see ffmpeg-process.ts), and the launcher reports their pid, their
 * exit and the tail of their stderr. `SVC_PROCESS_LAUNCHER=false` spawns directly instead.
 */
export interface LaunchedChild {
  /** The child's pid (signals can be sent to it directly). */
  readonly pid: number;
  /** Settles once the child has exited: its code or signal, and the last bytes of its stderr. */
  readonly exited: Promise<ChildExit>;
  kill(signal?: NodeJS.Signals): void;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

interface LauncherReply {
  op: 'spawned' | 'exit';
  id: number;
  pid?: number;
  code?: number | null;
  signal?: NodeJS.Signals | null;
  stderr?: string;
  error?: { message: string; code?: string };
}

interface Pending {
  spawned: (pid: number) => void;
  failed: (err: Error) => void;
  exited: (exit: ChildExit) => void;
  pid?: number;
}

/** The launcher's stderr tail limit is its own; a child that dies with the launcher says so. */
const LAUNCHER_GONE = 'the process launcher exited';

export class ProcessLauncher {
  private launcher: ChildProcess | null = null;
  private nextId = 1;
  private readonly live = new Map<number, Pending>();

  /** A child started by the launcher process; rejects like spawn's 'error' (ENOENT...) if it cannot start. */
  launch(file: string, args: readonly string[]): Promise<LaunchedChild> {
    const launcher = this.ensureLauncher();
    const id = this.nextId++;
    return new Promise<LaunchedChild>((resolve, reject) => {
      let settleExit!: (exit: ChildExit) => void;
      const exited = new Promise<ChildExit>((r) => (settleExit = r));
      const pending: Pending = {
        spawned: (pid) => {
          pending.pid = pid;
          resolve({
            pid,
            exited,
            kill: (signal = 'SIGTERM') => {
              if (this.live.has(id) && launcher.connected) launcher.send({ op: 'kill', id, signal });
            },
          });
        },
        failed: reject,
        exited: settleExit,
      };
      this.live.set(id, pending);
      this.refWhileBusy();
      launcher.send({ op: 'spawn', id, file, args });
    });
  }

  /** Ends the launcher (its children are killed with it); settles once it has exited. */
  close(): Promise<void> {
    const launcher = this.launcher;
    this.launcher = null;
    if (!launcher || launcher.exitCode !== null || launcher.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => launcher.once('exit', () => resolve()));
    if (launcher.connected) launcher.disconnect();
    // It exits at once on disconnect; one that does not within a second is killed.
    const stuck = setTimeout(() => launcher.kill('SIGKILL'), 1000);
    return exited.finally(() => clearTimeout(stuck));
  }

  private ensureLauncher(): ChildProcess {
    if (this.launcher) return this.launcher;
    const launcher = fork(new URL('./process-launcher-main.js', import.meta.url), [], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // A small process: it only forwards spawns and exits.
      execArgv: ['--max-old-space-size=16', '--max-semi-space-size=1'],
      serialization: 'json',
    });
    launcher.on('message', (reply: LauncherReply) => this.onReply(reply));
    launcher.once('exit', () => this.onLauncherExit(launcher));
    launcher.on('error', () => undefined); // its exit follows; the children are accounted for there
    this.launcher = launcher;
    return launcher;
  }

  private onReply(reply: LauncherReply): void {
    const pending = this.live.get(reply.id);
    if (!pending) return;
    if (reply.op === 'spawned') {
      pending.spawned(reply.pid!);
      return;
    }
    this.live.delete(reply.id);
    this.refWhileBusy();
    if (pending.pid === undefined) {
      const err = Object.assign(new Error(reply.error?.message ?? `could not start the process`), { code: reply.error?.code });
      pending.failed(err);
    }
    pending.exited({ code: reply.code ?? null, signal: reply.signal ?? null, stderr: reply.stderr ?? '' });
  }

  /** The launcher died (killed, crashed): its children are killed too, and reported as such. */
  private onLauncherExit(launcher: ChildProcess): void {
    if (this.launcher === launcher) this.launcher = null;
    for (const [id, pending] of this.live) {
      this.live.delete(id);
      if (pending.pid === undefined) {
        pending.failed(new Error(LAUNCHER_GONE));
      } else {
        try {
          process.kill(pending.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      pending.exited({ code: null, signal: 'SIGKILL', stderr: LAUNCHER_GONE });
    }
  }

  /** The launcher keeps this process alive only while one of its children runs. */
  private refWhileBusy(): void {
    const launcher = this.launcher;
    if (!launcher) return;
    const channel = launcher.channel as { ref(): void; unref(): void } | undefined;
    if (this.live.size > 0) {
      launcher.ref();
      channel?.ref();
    } else {
      launcher.unref();
      channel?.unref();
    }
  }
}

let shared: ProcessLauncher | null = null;
let enabled = !['false', '0', 'no', 'off'].includes(process.env.SVC_PROCESS_LAUNCHER ?? '');
let users = 0;

/** The process's launcher (created on first use), or null when launching directly is configured. */
export function processLauncher(): ProcessLauncher | null {
  if (!enabled) return null;
  shared ??= new ProcessLauncher();
  return shared;
}

/**
 * A server's claim on the shared launcher (`SVC_PROCESS_LAUNCHER`: true by default, false spawns
 * directly, forking this process). The returned function gives it back; the launcher ends (its
 * children with it) when the last server of the process has given it back.
 */
export function useProcessLauncher(options: { enabled: boolean }): () => Promise<void> {
  enabled = options.enabled;
  users++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (--users === 0) await closeProcessLauncher();
  };
}

/** Ends the shared launcher now, if one was started. */
export async function closeProcessLauncher(): Promise<void> {
  const launcher = shared;
  shared = null;
  await launcher?.close();
}
