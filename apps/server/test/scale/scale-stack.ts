import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RealtimeClient } from '../helpers/realtime-client.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/** The Postgres and Redis of the scale suites (scripts/start-postgres.sh, scripts/start-redis.sh; .ci/run sets both). */
export const scalePostgresUrl = process.env.SVC_TEST_POSTGRES_URL;
export const scaleRedisUrl = process.env.SVC_TEST_REDIS_URL;

/** `describe` for suites that need the real Postgres AND Redis; pending (with the reason) otherwise. */
export function describeWithScaleStack(title: string, body: (this: Mocha.Suite) => void): void {
  if (scalePostgresUrl && scaleRedisUrl) describe(`${title} (Postgres + Redis)`, body);
  else
    describe.skip(
      `${title} (pending: set SVC_TEST_POSTGRES_URL=$(bash scripts/start-postgres.sh) SVC_TEST_REDIS_URL=$(bash scripts/start-redis.sh))`,
      body,
    );
}

export const newKey = (label: string) => `sk-${label}-${randomBytes(10).toString('hex')}`;

/** Reference audio for voice registration (Debian's pocketsphinx test clip, installed by scripts/setup-system.sh). */
export const REFERENCE_CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';

export interface ApiCluster {
  apis: ServerProcess[];
  dataDir: string;
  /** Stops every process still running and removes the shared data directory. */
  stop(): Promise<void>;
}

/**
 * N API processes (role both: the default) on one Postgres + one Redis and one shared blob directory
 * (the filesystem blob store on a shared volume). Started one after the other so migrations never race.
 * A Redis key prefix of their own keeps them apart from every other suite on the same Redis.
 */
export async function startApiCluster(
  count: number,
  env: Record<string, string>,
  urls: { postgres?: string; redis?: string } = {},
): Promise<ApiCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
  const shared = {
    SVC_DATABASE_URL: urls.postgres ?? scalePostgresUrl!,
    SVC_REDIS_URL: urls.redis ?? scaleRedisUrl!,
    SVC_REDIS_KEY_PREFIX: `svc-test:${randomUUID()}:`,
    ...env,
  };
  const apis: ServerProcess[] = [];
  const stop = async () => {
    await Promise.all(apis.map((p) => p.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < count; i++) apis.push(await startServerProcess({ env: shared, dataDir }));
  } catch (err) {
    await stop();
    throw err;
  }
  return { apis, dataDir, stop };
}

/** A WebSocket connection: resolves once it opened and (when `configure`) its session was created, or with the close code if refused. */
export async function connectRealtime(
  proc: ServerProcess,
  auth: { apiKey: string } | { clientSecret: string },
): Promise<{ client: RealtimeClient; refused: number | null }> {
  const client =
    'apiKey' in auth
      ? RealtimeClient.connect(proc.wsUrl, { apiKey: auth.apiKey })
      : RealtimeClient.connect(proc.wsUrl, { protocols: ['realtime', `svc-client-secret.${auth.clientSecret}`] });
  await client.opened;
  client.send({
    type: 'session.update',
    session: { type: 'realtime', model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
  });
  // A refusal is a close right after the upgrade (1013, 4009, 3000): next() fails with closeInfo set.
  const first: string | number = await client.next(15_000).then(
    (e) => e.type,
    (err: Error) => client.closeInfo?.code ?? `no answer: ${err.message}`,
  );
  if (typeof first === 'number') return { client, refused: first };
  if (first !== 'session.created') throw new Error(`expected session.created, got ${first}`);
  return { client, refused: null };
}

/**
 * Connects until admitted, for a slot that was just freed elsewhere: a server releases a session's
 * slot when its socket's close event fires, a shared-store round trip after the client saw the close,
 * so a reconnect racing it may still be refused. Returns the last attempt and how long admission took.
 */
export async function connectWhenFreed(
  proc: ServerProcess,
  auth: { apiKey: string } | { clientSecret: string },
  withinMs = 2_000,
): Promise<{ client: RealtimeClient; refused: number | null; waitedMs: number; refusedClients: RealtimeClient[] }> {
  const started = Date.now();
  const refusedClients: RealtimeClient[] = [];
  for (;;) {
    const attempt = await connectRealtime(proc, auth);
    const waitedMs = Date.now() - started;
    if (attempt.refused === null || waitedMs >= withinMs) return { ...attempt, waitedMs, refusedClients };
    refusedClients.push(attempt.client);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
