import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Starts child processes (ffmpeg) without forking this process.
 *
 * Node's spawn() forks the calling process on Linux (libuv uses fork(), not vfork/posix_spawn). For
 * a service of hundreds of MB with a dozen threads that costs twice: the fork blocks the event loop
 * while the page tables are copied, and afterwards EVERY page any thread writes takes a copy-on-write
 * fault the first time, so each video's standby ffmpeg made the next new photo's face detection
 * several times slower (docs/deployment.md, "Child processes: the launcher").
 *
 * So a small launcher process does the spawning: python/process_launcher.py on Debian's python3 (what
 * the pocketsphinx decoders run on; small and quick to start), spawned once, at the first child. The
 * children it starts have no pipes to this process: they connect to Unix sockets this process listens
 * on (runtime/child-sockets.ts; ffmpeg's `unix:` protocol, the decoders' `--socket`), and the launcher
 * reports their pid, their exit and the tail of their stderr. `SVC_PROCESS_LAUNCHER=false`, or no
 * python3, spawns directly instead.
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

/** The interpreter and script of the launcher process. */
const PYTHON = '/usr/bin/python3';
type LauncherProcess = ChildProcessByStdio<Writable, Readable, null>;
const LAUNCHER_SCRIPT = fileURLToPath(new URL('../../python/process_launcher.py', import.meta.url));

/** The program that does the launching: the launcher script, or one that speaks its protocol. */
export interface LauncherCommand {
  file: string;
  args: readonly string[];
}

export class ProcessLauncher {
  private launcher: LauncherProcess | null = null;
  private nextId = 1;
  private readonly live = new Map<number, Pending>();

  /**
   * `command`: another program with the launcher's protocol (the pocketsphinx decoder fork server,
   * which forks its children instead of running `file`); by default the launcher script.
   */
  constructor(private readonly command: LauncherCommand = { file: PYTHON, args: ['-u', LAUNCHER_SCRIPT] }) {}

  /** Whether this machine can run the launcher (Debian's python3 is there). */
  static available(): boolean {
    return existsSync(PYTHON) && existsSync(LAUNCHER_SCRIPT);
  }

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
              if (this.live.has(id)) this.send(launcher, { op: 'kill', id, signal });
            },
          });
        },
        failed: reject,
        exited: settleExit,
      };
      this.live.set(id, pending);
      this.refWhileBusy();
      this.send(launcher, { op: 'spawn', id, file, args });
    });
  }

  /** Ends the launcher (its children are killed with it); settles once it has exited. */
  close(): Promise<void> {
    const launcher = this.launcher;
    this.launcher = null;
    if (!launcher || launcher.exitCode !== null || launcher.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => launcher.once('exit', () => resolve()));
    launcher.stdin.end(); // it kills its children and exits when its input ends
    // One that does not exit within a second is killed.
    const stuck = setTimeout(() => launcher.kill('SIGKILL'), 1000);
    return exited.finally(() => clearTimeout(stuck));
  }

  private send(launcher: LauncherProcess, message: object): void {
    if (launcher.stdin.writable) launcher.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private ensureLauncher(): LauncherProcess {
    if (this.launcher) return this.launcher;
    const launcher = spawn(this.command.file, this.command.args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let lines = '';
    launcher.stdout.setEncoding('utf8').on('data', (text: string) => {
      lines += text;
      let nl: number;
      while ((nl = lines.indexOf('\n')) >= 0) {
        const line = lines.slice(0, nl);
        lines = lines.slice(nl + 1);
        try {
          this.onReply(JSON.parse(line) as LauncherReply);
        } catch {
          // not a reply
        }
      }
    });
    launcher.stdin.on('error', () => undefined); // a launcher that died: its exit is handled below
    launcher.once('exit', () => this.onLauncherExit(launcher));
    launcher.on('error', () => this.onLauncherExit(launcher));
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
  private onLauncherExit(launcher: LauncherProcess): void {
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
    const handles = [launcher, launcher.stdout, launcher.stdin] as unknown as { ref(): void; unref(): void }[];
    for (const h of handles) {
      if (this.live.size > 0) h.ref();
      else h.unref();
    }
  }
}

let shared: ProcessLauncher | null = null;
/** Launchers of other programs, by what they run (see `sharedLauncher`). */
const others = new Map<string, ProcessLauncher>();
let enabled = !['false', '0', 'no', 'off'].includes(process.env.SVC_PROCESS_LAUNCHER ?? '');
let users = 0;

/** The process's launcher (created on first use), or null when launching directly is configured. */
export function processLauncher(): ProcessLauncher | null {
  if (!enabled || !ProcessLauncher.available()) return null;
  shared ??= new ProcessLauncher();
  return shared;
}

/**
 * The process's launcher running `command` (one per command, created on first use), or null when
 * launching directly is configured. Ended with the shared launcher.
 */
export function sharedLauncher(command: LauncherCommand): ProcessLauncher | null {
  if (!enabled) return null;
  const key = [command.file, ...command.args].join('\0');
  let launcher = others.get(key);
  if (!launcher) others.set(key, (launcher = new ProcessLauncher(command)));
  return launcher;
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

/** Ends the shared launcher and those of other programs (`sharedLauncher`) now, if started. */
export async function closeProcessLauncher(): Promise<void> {
  const launchers = [shared, ...others.values()];
  shared = null;
  others.clear();
  await Promise.all(launchers.flatMap((launcher) => (launcher ? [launcher.close()] : [])));
}
