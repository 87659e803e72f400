import { loadConfig } from '../config.js';
import { buildContainer } from '../container.js';
import { foundationModule } from '../composition/foundation.js';
import { scaleModule } from '../composition/scale.js';
import { SERVER_TOKENS } from '../tokens.js';
import { parseCliArgs, runCliMain, USAGE_EXIT_CODE } from './cli-args.js';

const USAGE = `Usage:
  npm run keys -- create --name NAME     create a key (the secret is printed once)
  npm run keys -- list                   list keys (id, name, prefix, created, revoked)
  npm run keys -- revoke --id KEY_ID     revoke a key
  npm run keys -- --help                 this text
--json prints create and list as JSON. Reads SVC_DATA_DIR / SVC_DATABASE_URL like the server.`;

/** API key administration against the same database the server uses. */
export async function runKeysCli(argv: string[], out: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<number> {
  const parsed = parseCliArgs(
    argv,
    { name: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean', default: false } },
    USAGE,
    out,
  );
  if ('exit' in parsed) return parsed.exit;
  const { positionals, values } = parsed.args;
  const command = positionals[0];
  if (!command || !['create', 'list', 'revoke'].includes(command)) {
    if (command) out(`error: unknown command '${command}'.`);
    out(USAGE);
    return USAGE_EXIT_CODE;
  }
  // A process role of its own: the foundation module only (database and API keys, no engines).
  const modules = [foundationModule, scaleModule];
  const services = await buildContainer(loadConfig(process.env, modules), new Map(), modules);
  try {
    const keys = services.get(SERVER_TOKENS.ManageApiKeys);
    if (command === 'create') {
      if (!values.name) {
        out('create needs --name NAME');
        return USAGE_EXIT_CODE;
      }
      const { record, secret } = await keys.create(values.name);
      out(values.json ? JSON.stringify({ id: record.id, name: record.name, secret }) : `created ${record.id} (${record.name})\n${secret}`);
      return 0;
    }
    if (command === 'list') {
      const rows = await keys.list();
      if (values.json) out(JSON.stringify(rows.map(({ secretHash: _h, ...r }) => r)));
      // An empty table says nothing; a newcomer needs to hear there is none and how to make one.
      else if (rows.length === 0) out('No API keys yet. Create one with: npm run keys -- create --name NAME');
      else
        for (const r of rows)
          out(
            `${r.id}\t${r.name}\t${r.prefix}…\t${new Date(r.createdAt).toISOString()}\t${r.revokedAt ? 'revoked ' + new Date(r.revokedAt).toISOString() : 'active'}`,
          );
      return 0;
    }
    if (!values.id) {
      out('revoke needs --id KEY_ID');
      return USAGE_EXIT_CODE;
    }
    const ok = await keys.revoke(values.id);
    out(ok ? `revoked ${values.id}` : `no active key ${values.id}`);
    return ok ? 0 : 1;
  } finally {
    await services.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCliMain('keys', () => runKeysCli(process.argv.slice(2)));
}
