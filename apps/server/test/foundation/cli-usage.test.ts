import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLIs (`npm run keys` / `models` / `migrate` run these files). */
const CLI_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli');
const CLIS = readdirSync(CLI_DIR)
  .filter((f) => f.endsWith('.js') && f !== 'cli-args.js')
  .map((f) => f.slice(0, -3));

/** A Node stack frame as it appears in an uncaught error. */
const STACK_FRAME = /^\s+at .+\(?.+:\d+:\d+\)?$/m;

/** Issue 17, defect 9: every CLI answers --help with its usage (exit 0), and a wrong flag with usage and a non-zero code, never a stack. */
describe('CLIs as real processes: --help, unknown flags, failures without stack traces', function () {
  this.timeout(120_000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const run = (cli: string, args: string[], env: Record<string, string> = {}) => {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
    const r = spawnSync(process.execPath, [join(CLI_DIR, `${cli}.js`), ...args], {
      env: { ...inherited, SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, all: `${r.stdout}${r.stderr}` };
  };

  it('finds the three CLIs of apps/server/src/cli', () => {
    expect(CLIS).to.include.members(['keys', 'models', 'migrate']);
  });

  for (const cli of ['keys', 'models', 'migrate']) {
    it(`${cli} --help (and -h) print the usage on stdout and exit 0`, () => {
      for (const flag of cli === 'keys' ? ['--help', '-h'] : ['--help']) {
        const r = run(cli, [flag]);
        expect(r.code, `${cli} ${flag}: ${r.all}`).to.equal(0);
        expect(r.stdout).to.match(/^Usage:/m);
        expect(r.stdout).to.include(`npm run ${cli}`);
        expect(r.all).to.not.match(STACK_FRAME);
      }
    });

    it(`${cli} with an unknown flag prints what was wrong and the usage, exits 2, no stack`, () => {
      const r = run(cli, ['--frobnicate']);
      expect(r.code, r.all).to.equal(2);
      expect(r.all).to.include("'--frobnicate'");
      expect(r.all).to.match(/^Usage:/m);
      expect(r.all).to.not.match(STACK_FRAME);
    });
  }

  it('a CLI whose database cannot be reached says so in one line and exits 1, no stack', () => {
    for (const [cli, args] of [
      ['keys', ['list']],
      ['migrate', ['--check']],
    ] as const) {
      const r = run(cli, [...args], { SVC_DATABASE_URL: 'postgres://svc:svc@127.0.0.1:9/none' });
      expect(r.code, `${cli}: ${r.all}`).to.equal(1);
      expect(r.stderr).to.match(new RegExp(`^${cli} failed: .+`, 'm'));
      expect(r.all).to.not.match(STACK_FRAME);
    }
  });
});
