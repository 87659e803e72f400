import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/** The shared test Redis and Postgres (scripts/start-redis.sh, scripts/start-postgres.sh; .ci/run sets both). */
export const testRedisUrl = process.env.SVC_TEST_REDIS_URL;
export const testPostgresUrl = process.env.SVC_TEST_POSTGRES_URL;

/** `describe` for suites that need the real Redis AND Postgres; pending (with the reason) otherwise. */
export function describeWithRedisAndPostgres(title: string, body: (this: Mocha.Suite) => void): void {
  if (testRedisUrl && testPostgresUrl) describe(`${title} (Redis + Postgres)`, body);
  else {
    describe.skip(
      `${title} (pending: set SVC_TEST_REDIS_URL=$(bash scripts/start-redis.sh) SVC_TEST_POSTGRES_URL=$(bash scripts/start-postgres.sh))`,
      body,
    );
  }
}

/** psql without its NOTICE lines. */
const QUIET = { env: { ...process.env, PGOPTIONS: '-c client_min_messages=warning' }, stdio: ['ignore', 'ignore', 'inherit'] as ('ignore' | 'inherit')[] };

/**
 * A Postgres schema of its own on the test database, as a URL every process of one test uses: the
 * suite sees only its own rows (another suite's unfinished jobs are not this suite's workers' to
 * repair) and drop() removes everything.
 */
export function freshPostgresSchema(): { url: string; drop(): void } {
  const base = testPostgresUrl!;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', [base, '-q', '-c', `CREATE SCHEMA ${schema}`], QUIET);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: () => void execFileSync('psql', [base, '-q', '-c', `DROP SCHEMA IF EXISTS ${schema} CASCADE`], QUIET),
  };
}

/** A Redis key prefix no other test uses (the processes of one test share it). */
export const freshRedisPrefix = (): string => `svc-test-${randomBytes(6).toString('hex')}:`;
