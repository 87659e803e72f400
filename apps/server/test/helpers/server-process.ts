import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built server entry (`npm start` runs the same file): apps/server/dist/src/main.js. */
const SERVER_ENTRY = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'main.js');

export interface ServerProcessOptions {
  /** SVC_* settings on top of the defaults below (they win). */
  env?: Record<string, string>;
  /** Reuse a data directory (two processes sharing one, or a restart on the same data); otherwise a fresh one, removed by stop(). */
  dataDir?: string;
  /** The API key the process accepts (SVC_API_KEYS); a fresh random one when unset. */
  apiKey?: string;
  /** How long start waits for /readyz to answer 200 (default 60 s: engines load on a busy 2-core machine). */
  readyTimeoutMs?: number;
  /** Extra node arguments (e.g. --expose-gc). */
  nodeArgs?: string[];
  /** Another build's entry (a benchmark comparing two builds side by side); default this build's main.js. */
  entry?: string;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  readonly url: string;
  readonly wsUrl: string;
  readonly port: number;
  readonly apiKey: string;
  readonly dataDir: string;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far (its pino log lines), for failure messages. */
  logs(): string;
  /** The last `lines` lines of logs(). */
  tail(lines?: number): string;
  /** Sends a signal (SIGKILL for kill -9, SIGTERM for a graceful stop). */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves when the process has exited (at once if it already has). */
  exited(timeoutMs?: number): Promise<ExitStatus>;
  /** True until the process has exited. */
  alive(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; waits for the exit and removes an owned data directory. Safe to call twice. */
  stop(graceMs?: number): Promise<ExitStatus>;
}

/** A free loopback port (the kernel picks one; released before the server binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * A real server PROCESS (the built apps/server entry, `node dist/src/main.js`) on a free loopback
 * port with the given env and data directory. Resolves once /readyz answers 200; rejects with the
 * process's own log lines if it exits or stays unready. Unlike startTestServer it can be killed -9,
 * which is what the multi-process and fault tests need.
 */
export async function startServerProcess(options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const ownsDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-proc-'));
  const apiKey = options.apiKey ?? `sk-proc-${randomBytes(12).toString('hex')}`;
  const port = await freePort();
  // The parent's SVC_* settings (e.g. from a developer's shell) must not leak into the child.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  const env: Record<string, string | undefined> = {
    ...inherited,
    SVC_HOST: '127.0.0.1',
    SVC_PORT: String(port),
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'info',
    SVC_API_KEYS: apiKey,
    SVC_BOOTSTRAP_KEY: 'false',
    SVC_FLITE_WORKERS: '2',
    // As in startTestServer: capacity admission only where a test turns it on.
    SVC_REALTIME_CAPACITY: 'off',
    SVC_REALTIME_TRANSCRIPT_DEADLINE_MS: '120000',
    ...options.env,
  };
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), options.entry ?? SERVER_ENTRY], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout?.on('data', (d: Buffer) => chunks.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => chunks.push(d.toString()));
  let exit: ExitStatus | null = null;
  const exitPromise = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
    child.once('error', (err) => {
      chunks.push(`spawn error: ${err.message}\n`);
      exit = { code: null, signal: null };
      resolve(exit);
    });
  });

  const url = `http://127.0.0.1:${port}`;
  const logs = () => chunks.join('');
  const tail = (lines = 40) => logs().split('\n').slice(-lines).join('\n');
  const exited = (timeoutMs = 30_000): Promise<ExitStatus> =>
    exit
      ? Promise.resolve(exit)
      : new Promise((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`server process ${child.pid} did not exit within ${timeoutMs} ms\n${tail()}`)),
            timeoutMs,
          );
          void exitPromise.then((s) => {
            clearTimeout(timer);
            resolve(s);
          });
        });
  let stopped: Promise<ExitStatus> | null = null;
  const handle: ServerProcess = {
    url,
    wsUrl: `ws://127.0.0.1:${port}`,
    port,
    apiKey,
    dataDir,
    pid: child.pid ?? -1,
    logs,
    tail,
    kill: (signal = 'SIGKILL') => {
      if (!exit) child.kill(signal);
    },
    exited,
    alive: () => exit === null,
    stop(graceMs = 15_000) {
      stopped ??= (async () => {
        if (!exit) child.kill('SIGTERM');
        const timer = setTimeout(() => {
          if (!exit) child.kill('SIGKILL');
        }, graceMs);
        const status = await exitPromise;
        clearTimeout(timer);
        if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
        return status;
      })();
      return stopped;
    },
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (exit) {
      await handle.stop();
      throw new Error(`server process exited before it was ready (${JSON.stringify(exit)})\n${tail()}`);
    }
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      const body = await res.text();
      if (res.status === 200) return handle;
      last = `${res.status} ${body.slice(0, 300)}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  await handle.stop(2000);
  throw new Error(`server process not ready within ${options.readyTimeoutMs ?? 60_000} ms (last /readyz: ${last})\n${tail()}`);
}
