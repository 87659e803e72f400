import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readThroughOnePagePipe } from '../helpers/slow-pipe.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const RUNNER = join(ROOT, 'scripts', 'run-tests.cjs');
const MOCHA = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

/** A line that makes a test file a browser's (split, so that this file is not taken for one). */
const BROWSER_IMPORT = `import type { Page } from 'playwright${'-'}core';\n`;

function list(tier: string, root = ROOT, flags: string[] = [], env: NodeJS.ProcessEnv = {}): string[] {
  const run = spawnSync(process.execPath, [RUNNER, tier, '--list', ...flags], {
    env: { ...process.env, SVC_TEST_ROOT: root, ...env },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).to.equal(0);
  return run.stdout.split('\n').filter(Boolean);
}

/** Every compiled test file of a workspace folder ("packages" or "apps"), found here independently of the runner. */
function compiledTests(workspace: string): string[] {
  return readdirSync(join(ROOT, workspace)).flatMap((pkg) => {
    const dir = join(ROOT, workspace, pkg, 'dist', 'test');
    let names: string[] = [];
    try {
      names = readdirSync(dir, { recursive: true }) as string[];
    } catch {
      return [];
    }
    return names.filter((n) => n.endsWith('.test.js')).map((n) => relative(ROOT, join(dir, n)));
  });
}

const sourceOf = (file: string) => readFileSync(join(ROOT, file.replace('/dist/test/', '/test/').replace(/\.js$/, '.ts')), 'utf8');

/** A test file that passes only if `other` runs while it does: each writes its marker and waits for the other's. */
function waitsBeside(markers: string, me: string, other: string): string {
  return [
    "const fs = require('fs');",
    `describe('${me}', () => {`,
    `  it('runs while ${other} runs', async function () {`,
    '    this.timeout(30000);',
    `    fs.writeFileSync(${JSON.stringify(join(markers, me))}, '');`,
    '    const deadline = Date.now() + 20000;',
    `    while (!fs.existsSync(${JSON.stringify(join(markers, other))})) {`,
    `      if (Date.now() > deadline) throw new Error('${other} did not run beside me');`,
    '      await new Promise((r) => setTimeout(r, 20));',
    '    }',
    // ends a while after its neighbour started, so that a file that must wait for it would see it run
    '    await new Promise((r) => setTimeout(r, 1500));',
    `    fs.writeFileSync(${JSON.stringify(join(markers, `${me}-done`))}, '');`,
    '  });',
    '});',
  ].join('\n');
}

describe('test tiers (scripts/test-tiers.cjs, scripts/run-tests.cjs)', function () {
  // each test runs the runner over a tree of its own, several mocha processes: slow on a busy machine
  this.timeout(180_000);

  it('npm test runs every compiled test file of every package and app, each once', () => {
    const all = list('all');
    expect(new Set(all).size, 'no file twice').to.equal(all.length);
    expect([...all].sort()).to.deep.equal([...compiledTests('packages'), ...compiledTests('apps')].sort());
  });

  it("the fast tier is the packages' in-process tests: every core test, no app test, no browser, nothing tagged slow or serial", () => {
    const fast = list('fast');
    const packages = compiledTests('packages');
    expect(
      fast.filter((f) => !f.startsWith('packages/')),
      'only package tests',
    ).to.deep.equal([]);
    const core = packages.filter((f) => f.startsWith('packages/core/'));
    expect(core.length).to.be.greaterThan(10);
    expect(
      core.filter((f) => !fast.includes(f)),
      'core is pure: all of it is fast',
    ).to.deep.equal([]);
    for (const file of fast) {
      const source = sourceOf(file);
      expect(source, file).not.to.match(/playwright-core|helpers\/browser/);
      expect(source, file).not.to.match(/^\s*\/\/\s*@test-tier\s+(slow|serial|paced|light)/m);
    }
    const left = packages.filter((f) => !fast.includes(f));
    for (const file of left)
      expect(sourceOf(file), `${file} is a package test outside the fast tier`).to.match(
        /@test-tier\s+(slow|serial|paced|light)|playwright-core/,
      );
  });

  it('--list into a reader that stops early (`| head -1`) ends quietly, status 0', () => {
    const run = spawnSync(
      'bash',
      ['-c', `"${process.execPath}" "${RUNNER}" all --list --lanes | head -1; echo "status \${PIPESTATUS[0]}"`],
      {
        encoding: 'utf8',
      },
    );
    expect(run.stdout.split('\n').filter(Boolean)).to.have.length(2);
    expect(run.stdout).to.match(/status 0\n$/);
    expect(run.stderr).not.to.contain('EPIPE');
  });

  it('a reader that is slow on a one-page pipe still gets every line of --list (the exit does not cut them)', () => {
    // A pipe past the user's pipe-page limit holds one page; what did not fit waited in Node and the
    // exit dropped it (a busy CI run read 278 of 305 lines).
    const slowRead = (...args: string[]) => readThroughOnePagePipe([process.execPath, RUNNER, ...args]);
    const listed = slowRead('all', '--list').split('\n').filter(Boolean);
    expect(listed).to.have.length(list('all').length);
    expect(listed.length).to.be.greaterThan(100);
  });

  it('a tier runs only its files: mocha with the shared config and one file named loads that file alone', () => {
    const file = 'packages/core/dist/test/speech/sentence-splitter.test.js';
    const run = spawnSync(process.execPath, [MOCHA, '--config', join(ROOT, '.mocharc.cjs'), '--dry-run', '--reporter', 'json', file], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const report = JSON.parse(run.stdout) as { tests: { file: string }[] };
    expect(report.tests.length).to.be.greaterThan(0);
    expect([...new Set(report.tests.map((t) => relative(ROOT, t.file)))]).to.deep.equal([file]);
  });

  describe('the runner over a tree of its own', () => {
    let root = '';
    before(() => {
      root = mkdtempSync(join(tmpdir(), 'svc-tiers-'));
      const put = (path: string, body: string) => {
        mkdirSync(join(root, path, '..'), { recursive: true });
        writeFileSync(join(root, path), body);
      };
      put('packages/a/dist/test/passes.test.js', "describe('a', () => { it('passes', () => {}); it('also passes', () => {}); });\n");
      put('packages/a/dist/test/fails.test.js', "describe('b', () => { it('fails', () => { throw new Error('no'); }); });\n");
      put('packages/a/test/slow.test.ts', '// @test-tier slow\n');
      put('packages/a/dist/test/slow.test.js', "describe('slow', () => { it('passes', () => {}); it.skip('skipped', () => {}); });\n");
      put('apps/s/test/crash.test.ts', '// @test-tier serial: exits mid-run\n');
      put('apps/s/dist/test/crash.test.js', "describe('c', () => { it('exits', () => process.exit(3)); });\n");
      put('apps/s/dist/test/app.test.js', "describe('d', () => { it('passes', () => {}); });\n");
    });
    after(() => rmSync(root, { recursive: true, force: true }));

    it('lists by rule: the fast tier leaves out apps and tagged files; the serial group comes last', () => {
      expect(list('fast', root)).to.have.members(['packages/a/dist/test/fails.test.js', 'packages/a/dist/test/passes.test.js']);
      const all = list('all', root);
      expect(all).to.have.length(5);
      expect(all[all.length - 1]).to.equal('apps/s/dist/test/crash.test.js');
    });

    it('adds up every process into one last line, counts a crash as a failure, lists the slowest files and exits 1', () => {
      const run = spawnSync(process.execPath, [RUNNER, 'all'], {
        env: { ...process.env, SVC_TEST_ROOT: root, SVC_TEST_JOBS: '2' },
        encoding: 'utf8',
      });
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines[lines.length - 1]).to.equal('4 passed, 2 failed, 1 skipped');
      expect(run.stdout).to.contain('The 10 slowest test files:');
      expect(run.stdout).to.match(/apps\/s\/dist\/test\/crash\.test\.js: 0 passed, 1 failed.*without a summary/);
      expect(run.status).to.equal(1);
    });

    it('names what failed in the summary at the end, where a log cut to its tail still shows it', () => {
      const run = spawnSync(process.execPath, [RUNNER, 'all'], { env: { ...process.env, SVC_TEST_ROOT: root }, encoding: 'utf8' });
      const summary = run.stdout.slice(run.stdout.indexOf('Time by group:'));
      const whatFailed = summary.slice(summary.indexOf('What failed:'));
      expect(summary).to.contain('What failed:');
      expect(whatFailed).to.match(/fails\.test\.js:\n\s+1\) b\n\s+fails:\n\s+Error: no/);
      expect(whatFailed).to.match(/crash\.test\.js \(exited 3 without a summary \(crashed\?\)\):/);
      expect(whatFailed, 'no stack frames').not.to.match(/^\s+at /m);
      // one process over both fast files: the summary still says which file failed
      const shared = spawnSync(process.execPath, [RUNNER, 'fast'], {
        env: { ...process.env, SVC_TEST_ROOT: root, SVC_TEST_JOBS: '1' },
        encoding: 'utf8',
      });
      const sharedFailed = shared.stdout.slice(shared.stdout.indexOf('What failed:'));
      expect(sharedFailed).to.match(/2 fast files:\n[^]*failed in packages\/a\/dist\/test\/fails\.test\.js/);
      expect(sharedFailed).not.to.contain('passes.test.js');
    });

    it("gives each slow file's CPU beside its wall time, and each group's CPU", () => {
      const run = spawnSync(process.execPath, [RUNNER, 'all'], { env: { ...process.env, SVC_TEST_ROOT: root }, encoding: 'utf8' });
      const slowest = run.stdout.slice(run.stdout.indexOf('The 10 slowest test files:')).split('\n').slice(1, 6);
      expect(slowest.filter((l) => /^\s+[0-9.]+ s\s+CPU [0-9.]+ s\s+\S+\.test\.js$/.test(l))).to.have.length(5);
      expect(run.stdout).to.match(/^\s+[0-9.]+ s\s+concurrent .*\(CPU \d+ s, \d+% of \d+ cores\)$/m);
    });

    it("starts the concurrent group's lone files longest first by the last run's times, by size without them", () => {
      const files = { long: 'apps/s/dist/test/long.test.js', short: 'apps/s/dist/test/short.test.js' };
      // the short file is the bigger one: only the times can put the long one first
      writeFileSync(join(root, files.long), "describe('long', () => { it('passes', () => {}); });\n");
      writeFileSync(join(root, files.short), `describe('short', () => { it('passes', () => {}); });\n${'//\n'.repeat(500)}`);
      const times = join(root, 'test-artifacts', 'test-times.json');
      try {
        // one file a process (batches of one): the order of the lone files themselves
        const order = () => list('all', root, [], { SVC_TEST_BATCH_FILES: '1' }).filter((f) => Object.values(files).includes(f));
        expect(order(), 'by size').to.deep.equal([files.short, files.long]);
        mkdirSync(join(root, 'test-artifacts'), { recursive: true });
        writeFileSync(
          times,
          JSON.stringify({
            files: [
              { file: files.short, seconds: 1 },
              { file: files.long, seconds: 50 },
            ],
          }),
        );
        expect(order(), 'by the last times').to.deep.equal([files.long, files.short]);
      } finally {
        for (const f of [...Object.values(files).map((f) => join(root, f)), times]) rmSync(f, { force: true });
      }
    });

    it("runs the concurrent group's other app files four to a process, in path order; a file tagged own-process alone", () => {
      // each file records the process it ran in
      const pids = join(root, 'pids');
      mkdirSync(pids, { recursive: true });
      const names = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'];
      const file = (name: string) => join(root, `apps/s/dist/test/batch-${name}.test.js`);
      const own = { source: join(root, 'apps/s/test/batch-b2.test.ts') };
      try {
        for (const name of names)
          writeFileSync(
            file(name),
            `describe('${name}', () => { it('records its process', () => require('fs').writeFileSync(${JSON.stringify(join(pids, name))}, String(process.pid))); });\n`,
          );
        writeFileSync(own.source, "// @test-tier own-process: reads its process's own threads\n");
        // the default batch size, whatever the run around this test was given
        const { SVC_TEST_BATCH_FILES: _size, ...env } = process.env;
        const run = spawnSync(process.execPath, [RUNNER, 'concurrent'], {
          env: { ...env, SVC_TEST_ROOT: root },
          encoding: 'utf8',
        });
        const pid = Object.fromEntries(names.map((n) => [n, readFileSync(join(pids, n), 'utf8')]));
        // in path order: app.test.js, batch-b1, b3, b4 | b5, b6; b2 alone
        expect(new Set([pid.b1, pid.b3, pid.b4]).size, run.stdout).to.equal(1);
        expect(pid.b5, run.stdout).to.equal(pid.b6);
        expect(pid.b5).not.to.equal(pid.b1);
        expect(pid.b2).not.to.be.oneOf([pid.b1, pid.b5]);
        expect(run.stdout).to.match(
          /=== 4 files: apps\/s\/dist\/test\/app\.test\.js, [^\n]*batch-b1[^\n]*batch-b3[^\n]*batch-b4\.test\.js: 4 passed/,
        );
        expect(run.stdout).to.match(/^=== apps\/s\/dist\/test\/batch-b2\.test\.js: 1 passed/m);
        // each batched file still has its own line in the record of times
        const times = JSON.parse(readFileSync(join(root, 'test-artifacts', 'test-times.json'), 'utf8')) as { files: { file: string }[] };
        expect(times.files.map((f) => f.file)).to.include.members(names.map((n) => `apps/s/dist/test/batch-${n}.test.js`));
      } finally {
        for (const f of [...names.map(file), own.source, pids, join(root, 'test-artifacts')]) rmSync(f, { recursive: true, force: true });
      }
    });

    it('runs the files tagged paced two at a time, after the concurrent group, in a lane beside the serial files; one tagged alone after them', () => {
      // Each paced file waits for the other to have started: they pass only when run at the same time.
      const paced = ['apps/s/dist/test/paced-a.test.js', 'apps/s/dist/test/paced-b.test.js'];
      const markers = join(root, 'markers');
      mkdirSync(markers, { recursive: true });
      const sources = paced.map((f) => join(root, f.replace('/dist/test/', '/test/').replace(/\.js$/, '.ts')));
      const alone = { source: join(root, 'apps/s/test/alone.test.ts'), file: 'apps/s/dist/test/alone.test.js' };
      try {
        writeFileSync(join(root, paced[0]!), waitsBeside(markers, 'a', 'b'));
        writeFileSync(join(root, paced[1]!), waitsBeside(markers, 'b', 'a'));
        writeFileSync(sources[0]!, '// @test-tier paced: real-time audio that mostly waits\n');
        // A browser file runs alone unless tagged paced: this one drives a browser that mostly waits.
        writeFileSync(sources[1]!, `// @test-tier paced: a browser playing real-time audio\n${BROWSER_IMPORT}`);
        const browser = { source: join(root, 'apps/s/test/browser.test.ts'), file: 'apps/s/dist/test/browser.test.js' };
        writeFileSync(browser.source, BROWSER_IMPORT);
        writeFileSync(join(root, browser.file), '');
        const lanes = list('serial', root, ['--lanes']);
        expect(lanes, 'the browser file tagged paced').to.include(`paced\t${paced[1]}`);
        expect(lanes, 'an untagged browser file runs alone').to.include(`main\t${browser.file}`);
        rmSync(browser.source);
        rmSync(join(root, browser.file));
        // A serial file tagged alone starts only once both paced files have ended.
        writeFileSync(alone.source, '// @test-tier alone: a bound the paced files would break\n');
        writeFileSync(
          join(root, alone.file),
          [
            "const fs = require('fs');",
            "describe('alone', () => { it('runs after the paced files', () => {",
            ...['a', 'b'].map(
              (p) => `  if (!fs.existsSync(${JSON.stringify(join(markers, `${p}-done`))})) throw new Error('paced-${p} has not ended');`,
            ),
            '}); });',
          ].join('\n'),
        );
        expect(list('serial', root, ['--lanes']), 'a file tagged alone').to.include(`main after paced\t${alone.file}`);
        const all = list('all', root);
        expect(all.slice(-4, -2).sort(), 'the paced files just before the serial ones').to.deep.equal(paced);
        expect(all.slice(-2).sort()).to.deep.equal([alone.file, 'apps/s/dist/test/crash.test.js']);
        expect(list('fast', root), 'a paced file is not fast').not.to.include.members(paced);
        expect(list('serial', root), 'the tier after the concurrent group').to.deep.equal(all.slice(-4));
        const run = spawnSync(process.execPath, [RUNNER, 'all'], { env: { ...process.env, SVC_TEST_ROOT: root }, encoding: 'utf8' });
        expect(run.stdout).to.match(/paced-a\.test\.js: 1 passed, 0 failed/);
        expect(run.stdout).to.match(/paced-b\.test\.js: 1 passed, 0 failed/);
        expect(run.stdout).to.match(/alone\.test\.js: 1 passed, 0 failed/);
        expect(run.stdout).to.match(/^\s+[0-9.]+ s\s+paced .*\(CPU \d+ s, \d+% of \d+ cores\)$/m);
        expect(run.stdout.trimEnd().split('\n').at(-1)).to.equal('7 passed, 2 failed, 1 skipped');
      } finally {
        const made = [...paced.map((f) => join(root, f)), ...sources, alone.source, join(root, alone.file), markers];
        for (const f of made) rmSync(f, { recursive: true, force: true });
      }
    });

    it("runs the files tagged light in a lane of their own, beside the concurrent group's other files", () => {
      // One process at a time for the group's other files: the light file and the busy one pass only
      // when each sees the other running, which the light lane's own process allows.
      const files = { light: 'apps/s/dist/test/light.test.js', busy: 'apps/s/dist/test/busy.test.js' };
      const markers = join(root, 'light-markers');
      mkdirSync(markers, { recursive: true });
      const source = join(root, files.light.replace('/dist/test/', '/test/').replace(/\.js$/, '.ts'));
      try {
        writeFileSync(join(root, files.light), waitsBeside(markers, 'light', 'busy'));
        writeFileSync(join(root, files.busy), waitsBeside(markers, 'busy', 'light'));
        writeFileSync(source, '// @test-tier light: waits on real-time audio\n');
        expect(list('serial', root), 'a light file is in the concurrent group').not.to.include(files.light);
        expect(list('fast', root)).not.to.include(files.light);
        const run = spawnSync(process.execPath, [RUNNER, 'all'], {
          env: { ...process.env, SVC_TEST_ROOT: root, SVC_TEST_JOBS: '1' },
          encoding: 'utf8',
        });
        expect(run.stdout).to.match(/light\.test\.js: 1 passed, 0 failed/);
        // the busy file shares its process with the tree's other files (a batch)
        expect(run.stdout, run.stdout).to.match(/busy\.test\.js[^\n]*: \d+ passed, 0 failed/);
      } finally {
        for (const f of [...Object.values(files).map((f) => join(root, f)), source, markers]) rmSync(f, { recursive: true, force: true });
      }
    });

    it('--lint runs `npm run lint` beside the first group at the lowest priority: its failure is one failed, the tests still run', () => {
      writeFileSync(
        join(root, 'package.json'),
        // a second of CPU (however busy the machine): the linters' CPU is counted
        JSON.stringify({
          name: 'tiers-lint',
          private: true,
          scripts: {
            lint: "node -e \"for (const t = process.cpuUsage(); t.user + t.system < 1e6; ) Object.assign(t, process.cpuUsage()); console.log('niceness', require('os').getPriority())\" && echo lint found 2 problems; exit 3",
          },
        }),
      );
      try {
        const run = spawnSync(process.execPath, [RUNNER, 'all', '--lint'], {
          env: { ...process.env, SVC_TEST_ROOT: root },
          encoding: 'utf8',
        });
        const lint = /=== npm run lint: 0 passed, 1 failed, [0-9.]+ s, CPU ([0-9.]+) s \(exited 3\)\n[^]*lint found 2 problems/.exec(
          run.stdout,
        );
        expect(lint, run.stdout).not.to.equal(null);
        expect(Number(lint![1]), "the linters' CPU, counted in the group's").to.be.at.least(1);
        expect(run.stdout, 'the linters take only idle CPU').to.match(/^niceness 19$/m);
        expect(run.stdout.indexOf('=== npm run lint'), 'beside the first group: ended before the last group').to.be.lessThan(
          run.stdout.indexOf('=== apps/s/dist/test/crash.test.js'),
        );
        const lines = run.stdout.trimEnd().split('\n');
        expect(lines[lines.length - 1]).to.equal('4 passed, 3 failed, 1 skipped');
        expect(list('all', root), '--list names test files only').to.have.length(5);
      } finally {
        rmSync(join(root, 'package.json'));
      }
    });
  });
});
