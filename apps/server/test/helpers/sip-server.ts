import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SipCall } from '@svc/adapters-sip';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { startTestServer, type TestServer } from './test-server.js';
import { hasBaresip } from './baresip.js';

/** The real server with its SIP port on, acting as a key made on the same data beforehand (its id and its secret). */
export async function startSipServer(
  env: Record<string, string> = {},
): Promise<{ t: TestServer; dataDir: string; keyId: string; keySecret: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-sip-'));
  const first = await startTestServer({ dataDir });
  const created = await first.server.services.get(SERVER_TOKENS.ManageApiKeys).create('phone');
  await first.close();
  const t = await startTestServer({ dataDir, env: { SVC_SIP_PORT: '0', SVC_SIP_API_KEY_ID: created.record.id, ...env } });
  return { t, dataDir, keyId: created.record.id, keySecret: created.secret };
}

/** The next call the server answers. */
export function nextCall(t: TestServer, timeoutMs: number): Promise<SipCall> {
  return new Promise((resolve, reject) => {
    const stop = t.server.sip!.server.onCallAnswered((call) => {
      stop();
      clearTimeout(deadline);
      resolve(call);
    });
    const deadline = setTimeout(() => {
      stop();
      reject(new Error(`no call was answered within ${timeoutMs} ms`));
    }, timeoutMs);
  });
}

/** The suite's server with its SIP port (a new one per suite), or the suite skipped, saying why, without baresip. */
export function sipServerForSuite(env: Record<string, string> = {}): {
  readonly t: TestServer;
  readonly keyId: string;
  readonly keySecret: string;
} {
  let started: Awaited<ReturnType<typeof startSipServer>> | null = null;
  before(async function () {
    if (!hasBaresip()) {
      console.log('      skipped: baresip is not installed (bash scripts/setup-test-sip.sh installs it)');
      this.skip();
    }
    started = await startSipServer(env);
  });
  after(async () => {
    await started?.t.close();
    if (started) rmSync(started.dataDir, { recursive: true, force: true });
  });
  return {
    get t() {
      return started!.t;
    },
    get keyId() {
      return started!.keyId;
    },
    get keySecret() {
      return started!.keySecret;
    },
  };
}
