import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processRunning } from './process-alive.js';

// The Unix sockets a launched child (process-launcher.ts) connects to instead of inheriting pipes.

/** Folder names: svc-child-<pid>-<random>, so a later process can tell whose folder it was. */
const PREFIX = 'svc-child-';
const OWNED = /^svc-child-(\d+)-/;

let folder: string | null | undefined;
let removeAtExit = false;

/**
 * A private folder for this process's child sockets (mode 0700: no other user can connect), or null
 * when none can be made or its socket paths could pass the 108-byte limit of a Unix socket address
 * (a long TMPDIR): the children are then spawned directly. A folder removed while the process runs
 * (a /tmp cleaner such as systemd-tmpfiles) is made again. Making one first removes what processes
 * that died without their exit handler (SIGKILL, a crash) left behind.
 */
export function socketFolder(): string | null {
  if (folder && !existsSync(folder)) folder = undefined;
  if (folder === undefined) {
    try {
      sweepLeftoverFolders(tmpdir());
      const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
      folder = dir.length <= 70 ? dir : null;
      if (!removeAtExit) {
        removeAtExit = true;
        process.once('exit', () => {
          if (folder) rmSync(folder, { recursive: true, force: true });
        });
      }
      if (folder === null) rmSync(dir, { recursive: true, force: true });
    } catch {
      folder = null;
    }
  }
  return folder;
}

/**
 * Removes the socket folders in `parent` of this user's processes that no longer run. A folder whose
 * process is alive (or whose liveness cannot be told: another user's, EPERM) is left alone, as is
 * anything not named by socketFolder().
 */
export function sweepLeftoverFolders(parent: string): void {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(OWNED.exec(name)?.[1]);
    if (!pid || processRunning(pid)) continue;
    const dir = join(parent, name);
    try {
      if (uid !== undefined && statSync(dir).uid !== uid) continue;
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // gone already, or not ours to remove
    }
  }
}

let names = 0;
/** A new socket path in the folder. */
export function socketPath(dir: string, label: string): string {
  return join(dir, `${process.pid}-${++names}-${label}.sock`);
}

/** A listening socket that takes one connection, then stops listening. */
export interface OneConnection {
  /** The connection, or null if it was closed (or failed) before one came. */
  readonly socket: Promise<Socket | null>;
  /** Stops waiting for the connection (a connection already taken stays open). */
  close(): void;
}

export function listenOnce(path: string): OneConnection {
  const server = createServer();
  let settle!: (socket: Socket | null) => void;
  const socket = new Promise<Socket | null>((resolve) => (settle = resolve));
  server.once('connection', (s) => {
    s.on('error', () => undefined); // the child closing its end early is reported by its exit
    settle(s);
    server.close();
  });
  server.on('error', () => settle(null));
  server.listen(path);
  server.unref();
  return {
    socket,
    close: () => {
      settle(null);
      if (server.listening) server.close();
    },
  };
}
