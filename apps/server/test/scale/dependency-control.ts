import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root (the scripts live there). */
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

/** A port no other suite uses: the fault tests stop and start their OWN Redis and Postgres there. */
export const randomPort = (from: number) => from + Math.floor(Math.random() * 5000);

/** A Redis of this test's own (scripts/start-redis.sh PORT), which it may stop and start. */
export function startOwnRedis(port: number): string {
  return execFileSync('bash', ['scripts/start-redis.sh', String(port)], { encoding: 'utf8', cwd: ROOT }).trim();
}

export function stopOwnRedis(port: number): void {
  try {
    execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
  } catch {
    // already stopped
  }
}

/** A Postgres cluster of this test's own (scripts/start-postgres.sh PORT: cluster svc<PORT>), never the shared one. */
export function startOwnPostgres(port: number): string {
  return execFileSync('bash', ['scripts/start-postgres.sh', String(port)], {
    encoding: 'utf8',
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
}

export function stopOwnPostgres(port: number): void {
  if (port === 5432) throw new Error('refusing to stop the shared Postgres cluster');
  const version = execFileSync('bash', ['-c', 'ls /usr/lib/postgresql | sort -n | tail -n 1'], { encoding: 'utf8' }).trim();
  execFileSync('pg_ctlcluster', [version, `svc${port}`, 'stop', '-m', 'fast'], { stdio: 'ignore' });
}

/** Whether the Debian Postgres tools are here (scripts/start-postgres.sh installs them). */
export function canRunOwnPostgres(): boolean {
  try {
    execFileSync('bash', ['-c', 'command -v pg_ctlcluster && id -u | grep -qx 0'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
