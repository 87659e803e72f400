import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { scalePostgresUrl } from './scale-stack.js';

/** psql without its NOTICE lines. */
const QUIET = {
  env: { ...process.env, PGOPTIONS: '-c client_min_messages=warning' },
  stdio: ['ignore', 'ignore', 'inherit'] as ('ignore' | 'inherit')[],
};

/**
 * A Postgres schema of its own on the test database, as a URL every process of one test uses: the
 * test sees only its own rows (another suite's unfinished jobs are not this test's workers' to
 * repair) and drop() removes everything.
 */
export function freshPostgresSchema(): { url: string; drop(): void } {
  const base = scalePostgresUrl!;
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
