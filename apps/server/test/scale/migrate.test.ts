import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess } from '../helpers/server-process.js';
import { freshPostgresSchema } from './isolated-stack.js';
import { scalePostgresUrl } from './scale-stack.js';

const MIGRATE_CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'migrate.js');

/** `npm run migrate -- ARGS` as a real process with these settings. */
function migrateCli(env: Record<string, string>, ...args: string[]): { code: number | null; out: string } {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  const r = spawnSync(process.execPath, [MIGRATE_CLI, ...args], { env: { ...inherited, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('npm run migrate and SVC_MIGRATE_ON_START (real processes)', function () {
  this.timeout(180_000);

  it('a process told not to migrate refuses a schema that is behind, naming the fix; after `migrate` it starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-migrate-'));
    try {
      const env = { SVC_DATA_DIR: dataDir };
      const before = migrateCli(env, '--check');
      expect(before.code).to.equal(1);
      expect(before.out).to.match(/^pending: .*CreateApiKeysTable.*CreateVideoJobsTable/m);

      const refused = await startServerProcess({ dataDir, env: { SVC_MIGRATE_ON_START: 'false' } }).then(
        () => null,
        (err: Error) => err.message,
      );
      expect(refused).to.match(/exited before it was ready \(\{"code":1/);
      expect(refused).to.match(
        /svc failed to start: The database schema is behind this version \(\d+ migration\(s\) pending: .*Run `npm run migrate`/,
      );

      const applied = migrateCli(env);
      expect(applied.code, applied.out).to.equal(0);
      expect(applied.out).to.match(/^applied: CreateApiKeysTable\d+, /m);
      expect(migrateCli(env)).to.deep.equal({ code: 0, out: 'schema up to date: nothing to apply\n' });
      expect(migrateCli(env, '--check')).to.deep.equal({ code: 0, out: 'schema up to date\n' });

      const server = await startServerProcess({ dataDir, env: { SVC_MIGRATE_ON_START: 'false' } });
      try {
        const res = await fetch(`${server.url}/v1/audio/voices`, { headers: { Authorization: `Bearer ${server.apiKey}` } });
        expect(res.status).to.equal(200);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  (scalePostgresUrl ? it : it.skip)('on Postgres, processes that all migrate at start take turns instead of racing', async () => {
    const db = freshPostgresSchema();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-migrate-pg-'));
    try {
      const starts = await Promise.allSettled(
        [1, 2, 3].map(() => startServerProcess({ dataDir, env: { SVC_DATABASE_URL: db.url }, readyTimeoutMs: 120_000 })),
      );
      const failures = starts.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
      for (const s of starts) if (s.status === 'fulfilled') await s.value.stop();
      expect(failures).to.deep.equal([]);
      expect(migrateCli({ SVC_DATA_DIR: dataDir, SVC_DATABASE_URL: db.url }, '--check').code).to.equal(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      db.drop();
    }
  });
});
