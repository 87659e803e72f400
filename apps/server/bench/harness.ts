import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { SERVER_TOKENS } from '../src/tokens.js';
import { modelsDirOf } from '../src/runtime/models-dir.js';

export interface BenchServer {
  server: RunningServer;
  baseUrl: string;
  wsUrl: string;
  apiKey: string;
  close(): Promise<void>;
}

/** The real server on a free port, limits raised so the benchmark measures work, not throttling. */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const server = await startServer(
    loadConfig({
      SVC_PORT: '0',
      SVC_DATA_DIR: dataDir,
      // SVC_BENCH_LOG_LEVEL=debug shows the server's log beside the figures (why a turn waited)
      SVC_LOG_LEVEL: process.env.SVC_BENCH_LOG_LEVEL ?? 'silent',
      SVC_RATE_LIMIT_PER_MINUTE: '0',
      // A/B runs switch the process launcher from the shell (SVC_PROCESS_LAUNCHER=false npm run bench ...).
      ...(process.env.SVC_PROCESS_LAUNCHER ? { SVC_PROCESS_LAUNCHER: process.env.SVC_PROCESS_LAUNCHER } : {}),
      ...env,
    }),
  );
  const apiKey = (await server.services.get(SERVER_TOKENS.ManageApiKeys).create('bench')).secret;
  return {
    server,
    baseUrl: server.url,
    wsUrl: server.wsUrl,
    apiKey,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The operator's model directory as the server would find it (SVC_MODELS_DIR, else SVC_DATA_DIR/models): where a bench's named model is. */
export function operatorModelsDir(): string {
  return modelsDirOf(process.env.SVC_MODELS_DIR ?? '', resolve(process.env.SVC_DATA_DIR ?? './data'));
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** POST /v1/audio/speech; anything but 200 is an error (with the body's text). */
export async function postSpeech(ctx: { baseUrl: string; apiKey: string }, body: Record<string, unknown>): Promise<Response> {
  const res = await fetch(`${ctx.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ctx.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`speech returned ${res.status}: ${await res.text()}`);
  return res;
}

/** Time to first byte and total time of one speech request, reading the body to its end. */
export async function timedSpeech(
  ctx: { baseUrl: string; apiKey: string },
  body: Record<string, unknown>,
): Promise<{ ttfbMs: number; totalMs: number; bytes: number }> {
  const started = performance.now();
  const reader = (await postSpeech(ctx, body)).body!.getReader();
  let ttfbMs = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!ttfbMs) ttfbMs = performance.now() - started;
    bytes += value.byteLength;
  }
  return { ttfbMs, totalMs: performance.now() - started, bytes };
}

/** CPU time (ms) of this process and of its child processes (the pocketsphinx decoders) so far. */
export function cpuMs(): { own: number; decoders: number } {
  const own = process.cpuUsage();
  let decoders = 0;
  const tick = 10; // USER_HZ is 100 on Linux
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) continue;
      // utime + stime, plus what its exited children used (cutime + cstime).
      decoders += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * tick;
    } catch {
      // exited meanwhile
    }
  }
  // Decoders that exited (killed by a cancelled turn, replaced) count in this process's cutime + cstime.
  const self = readFileSync('/proc/self/stat', 'utf8');
  const fields = self.slice(self.lastIndexOf(')') + 2).split(' ');
  decoders += (Number(fields[13]) + Number(fields[14])) * tick;
  return { own: (own.user + own.system) / 1000, decoders };
}
