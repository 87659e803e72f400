import { parseArgs } from 'node:util';
import { createDataSource, migrate, pendingMigrations } from '@svc/adapters-storage';
import { loadConfig } from '../config.js';

const USAGE = `Usage:
  npm run migrate              apply the pending database migrations, then exit
  npm run migrate -- --check   list the pending ones; exit 1 if there are any (nothing changes)
Reads SVC_DATA_DIR / SVC_DATABASE_URL like the server. Run it once before starting processes with
SVC_MIGRATE_ON_START=false (docs/deployment.md).`;

/** Brings the database schema up to date, once, for a multi-process deployment. */
export async function runMigrateCli(argv: string[], out: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<number> {
  let check = false;
  try {
    check = Boolean(parseArgs({ args: argv, options: { check: { type: 'boolean', default: false } } }).values.check);
  } catch {
    out(USAGE);
    return 2;
  }
  const config = loadConfig();
  const dataSource = createDataSource({ url: config.databaseUrl, dataDir: config.dataDir });
  await dataSource.initialize();
  try {
    if (check) {
      const pending = await pendingMigrations(dataSource);
      out(pending.length === 0 ? 'schema up to date' : `pending: ${pending.join(', ')}`);
      return pending.length === 0 ? 0 : 1;
    }
    const applied = await migrate(dataSource);
    out(applied.length === 0 ? 'schema up to date: nothing to apply' : `applied: ${applied.join(', ')}`);
    return 0;
  } finally {
    await dataSource.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runMigrateCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`migrate failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
