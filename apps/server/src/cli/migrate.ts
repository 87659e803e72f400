import { createDataSource, migrate, pendingMigrations } from '@svc/adapters-storage';
import { loadConfig } from '../config.js';
import { parseCliArgs, runCliMain, USAGE_EXIT_CODE } from './cli-args.js';

const USAGE = `Usage:
  npm run migrate              apply the pending database migrations, then exit
  npm run migrate -- --check   list the pending ones; exit 1 if there are any (nothing changes)
  npm run migrate -- --help    this text
Reads SVC_DATA_DIR / SVC_DATABASE_URL like the server. Run it once before starting processes with
SVC_MIGRATE_ON_START=false (docs/deployment.md).`;

/** Brings the database schema up to date, once, for a multi-process deployment. */
export async function runMigrateCli(argv: string[], out: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<number> {
  const parsed = parseCliArgs(argv, { check: { type: 'boolean', default: false } }, USAGE, out);
  if ('exit' in parsed) return parsed.exit;
  if (parsed.args.positionals.length > 0) {
    out(`error: unexpected argument '${parsed.args.positionals[0]}'.`);
    out(USAGE);
    return USAGE_EXIT_CODE;
  }
  const check = Boolean(parsed.args.values.check);
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
  runCliMain('migrate', () => runMigrateCli(process.argv.slice(2)));
}
