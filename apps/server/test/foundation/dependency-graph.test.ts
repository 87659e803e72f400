import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const DEPCRUISE = join(ROOT, 'tools/lint/node_modules/.bin/depcruise');

/** Runs the repository's dependency-cruiser config (as `npm run lint` does) on a tree of files; its exit code and report. */
async function cruise(files: Record<string, string>): Promise<{ code: number; report: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-depcruise-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const args = ['--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'err', 'packages'];
    return await new Promise((done) => {
      execFile(DEPCRUISE, args, { cwd: dir, timeout: 120_000 }, (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, report: `${stdout}${stderr}` });
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The graph rules of the lint step (.dependency-cruiser.cjs, run by npm run lint) fail on a violation. */
describe('dependency graph lint (.dependency-cruiser.cjs, run by npm run lint)', function () {
  this.timeout(240_000);

  it('fails on an import cycle, naming its files', async () => {
    const { code, report } = await cruise({
      'packages/adapters-x/src/a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
      'packages/adapters-x/src/b.ts': "import { a } from './a.js';\nexport const b = (): number => a() - 1;\n",
    });
    expect(code, report).to.not.equal(0);
    expect(report).to.match(/no-circular: packages\/adapters-x\/src\/a\.ts/);
  });

  it('fails on an orphan file (imports nothing, imported by nothing)', async () => {
    const { code, report } = await cruise({
      'packages/core/src/index.ts': "import { two } from './two.js';\nexport const one = two - 1;\n",
      'packages/core/src/two.ts': 'export const two = 2;\n',
      'packages/core/src/forgotten.ts': 'export const unused = 1;\n',
    });
    expect(code, report).to.not.equal(0);
    expect(report).to.match(/no-orphans: packages\/core\/src\/forgotten\.ts/);
    expect(report).to.not.match(/two\.ts|index\.ts/);
  });

  it('passes a cycle made only of type imports (gone at run time) and a tree without orphans', async () => {
    const { code, report } = await cruise({
      'packages/core/src/a.ts': "import type { B } from './b.js';\nexport interface A {\n  b?: B;\n}\n",
      'packages/core/src/b.ts': "import type { A } from './a.js';\nexport interface B {\n  a?: A;\n}\n",
    });
    expect(report).to.not.match(/error/);
    expect(code, report).to.equal(0);
  });
});
