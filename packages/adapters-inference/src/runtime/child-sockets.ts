import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The Unix sockets a launched child (process-launcher.ts) connects to instead of inheriting pipes.

let folder: string | null | undefined;

/**
 * A private folder for this process's child sockets (mode 0700: no other user can connect), or null
 * when none can be made or its socket paths could pass the 108-byte limit of a Unix socket address
 * (a long TMPDIR): the children are then spawned directly.
 */
export function socketFolder(): string | null {
  if (folder === undefined) {
    try {
      const dir = mkdtempSync(join(tmpdir(), 'svc-child-'));
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      folder = dir.length <= 70 ? dir : null;
    } catch {
      folder = null;
    }
  }
  return folder;
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
