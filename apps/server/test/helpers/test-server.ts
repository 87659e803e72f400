import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED_TOKENS, type Clock } from '@svc/core';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { SERVER_TOKENS } from '../../src/tokens.js';
import type { Overrides } from '../../src/container.js';

export interface TestServerOptions {
  /** SVC_* settings on top of the test defaults. */
  env?: Record<string, string>;
  clock?: Clock;
  overrides?: Overrides;
  /** Keep the data directory (to restart a server on the same data). */
  dataDir?: string;
}

export interface TestServer {
  baseUrl: string;
  wsUrl: string;
  apiKey: string;
  dataDir: string;
  server: RunningServer;
  createApiKey(name?: string): Promise<string>;
  close(): Promise<void>;
}

/** The real server on a free loopback port with a fresh SQLite file and one API key. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const ownsDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-test-'));
  const config = loadConfig({
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'silent',
    SVC_FLITE_WORKERS: '2',
    // The speech engines load on the first request that needs one (the default, `blocking`, loads
    // every engine before listening: three threads, a third of a start's CPU, which most tests
    // never use). speech-warm-up.test.ts checks the default.
    SVC_SPEECH_WARM_UP: 'lazy',
    // Admission by capacity measures this machine's load, which on a busy CI machine is other
    // tests' work: tests of other features must not be refused by it. Its own tests turn it on.
    SVC_REALTIME_CAPACITY: 'off',
    // Likewise the realtime transcript deadline (3 s by default) drops turns whose recognition a
    // loaded machine slowed down: a generous one unless a test is about the deadline itself.
    SVC_REALTIME_TRANSCRIPT_DEADLINE_MS: '120000',
    ...options.env,
  });
  const overrides: Overrides = new Map(options.overrides ?? []);
  if (options.clock) overrides.set(SHARED_TOKENS.Clock, options.clock);
  const server = await startServer(config, overrides);
  const keys = server.services.get(SERVER_TOKENS.ManageApiKeys);
  const createApiKey = async (name = 'test') => (await keys.create(name)).secret;
  const apiKey = await createApiKey('primary');
  return {
    baseUrl: server.url,
    wsUrl: server.wsUrl,
    apiKey,
    dataDir,
    server,
    createApiKey,
    async close() {
      await server.close();
      if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
