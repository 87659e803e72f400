// Which compiled test files each tier runs, by rule (no list to keep up to date):
//   - every `*.test.js` under `packages/*/dist/test/` and `apps/*/dist/test/` is in `npm test`;
//   - the fast tier (`npm run test:fast`) is every file under `packages/*/dist/test/` whose source
//     does not opt out with a `// @test-tier slow` or `// @test-tier serial` comment and does not
//     drive a browser (playwright-core): the pure and in-process tests of every package;
//   - `npm test` runs a file alone, with nothing beside it (the serial group), when its source says
//     `// @test-tier serial` (CPU ratios, latency bounds that a CPU-bound neighbour would break,
//     anything that contention would make flaky) or it drives a browser (unless it is tagged paced);
//   - a serial file whose source says `// @test-tier alone` (a bound that even the paced files'
//     little CPU breaks) also waits until the paced lane has ended; the serial files after it in
//     the queue go first meanwhile;
//   - a file whose source says `// @test-tier paced` (it streams audio at real-time pace and mostly
//     waits: little CPU per wall second; a browser file too) runs after the concurrent group, two at a time, beside
//     another paced file and the serial file of the moment, never beside the concurrent group's
//     CPU-bound files;
//   - every other file runs beside others (the concurrent group); of those, a file whose source says
//     `// @test-tier light` (it waits on real-time audio or timers far more than it computes, and
//     tolerates CPU-bound neighbours) runs in a lane of its own beside the group's CPU-bound files,
//     so that its waiting does not hold one of the processes the CPU work needs;
//   - the concurrent group's other files run four to a mocha process (scripts/run-tests.cjs); a file
//     whose source says `// @test-tier own-process` (it reads its own process: threads, memory)
//     has a process to itself;
//   - files that use the shared PostgreSQL database (SVC_TEST_POSTGRES_URL, directly or through
//     test/database-targets.ts or test/scale/scale-stack.ts) never run at the same time as each
//     other: their suites migrate and drop the same tables.
// The tag is read from the TypeScript source beside the compiled file (test/x.test.ts for
// dist/test/x.test.js), so a comment the compiler drops still counts.
const fs = require('fs');
const path = require('path');

const TAG = /^\s*\/\/\s*@test-tier\s+(slow|serial|alone|paced|light|own-process)(?![\w-])/m;
const BROWSER = /from ['"]playwright-core['"]|\/helpers\/browser\.js['"]/;
const SHARED_POSTGRES = /SVC_TEST_POSTGRES_URL|database-targets\.js['"]|scale-stack\.js['"]/;

/** Every compiled test file under `<root>/<workspace>/*\/dist/test`, sorted. */
function testFiles(root) {
  const files = [];
  for (const workspace of ['packages', 'apps']) {
    const parent = path.join(root, workspace);
    if (!fs.existsSync(parent)) continue;
    for (const pkg of fs.readdirSync(parent).sort()) {
      const dir = path.join(parent, pkg, 'dist', 'test');
      if (fs.existsSync(dir)) walk(dir, files);
    }
  }
  return files.sort();
}

function walk(dir, into) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, into);
    else if (entry.name.endsWith('.test.js')) into.push(full);
  }
}

/** The source a compiled test came from (its .ts beside the package's test folder), else the .js itself. */
function sourceOf(file) {
  const ts = file.replace(`${path.sep}dist${path.sep}test${path.sep}`, `${path.sep}test${path.sep}`).replace(/\.js$/, '.ts');
  return fs.existsSync(ts) ? ts : file;
}

/** How a file is to be run: its tag, whether it drives a browser, whether it is a package's test. */
function classify(root, file) {
  const source = fs.readFileSync(sourceOf(file), 'utf8');
  const tag = (TAG.exec(source) || [])[1] || null;
  const browser = BROWSER.test(source);
  const inPackage = path.relative(root, file).split(path.sep)[0] === 'packages';
  return {
    file,
    fast: inPackage && (tag === null || tag === 'own-process') && !browser,
    // A browser file runs alone unless it says it is paced (real-time audio that mostly waits).
    serial: tag === 'serial' || tag === 'alone' || (browser && tag !== 'paced'),
    /** Serial, and not beside a paced file either: it starts once the paced lane has ended. */
    alone: tag === 'alone',
    paced: tag === 'paced',
    light: tag === 'light' && !browser,
    /** In npm test's concurrent group, run in a mocha process of its own, not batched with others. */
    ownProcess: tag === 'own-process',
    /** What the file holds while it runs, that no other file may hold at the same time. */
    exclusive: SHARED_POSTGRES.test(source) ? ['postgres'] : [],
  };
}

/**
 * The tiers and npm test's groups: fast, all; concurrent + paced + serial = all; light is the part of
 * concurrent that runs in the waiting lane; exclusive: file -> what it holds.
 */
function tiers(root) {
  const classified = testFiles(root).map((f) => classify(root, f));
  return {
    exclusive: new Map(classified.filter((c) => c.exclusive.length > 0).map((c) => [c.file, c.exclusive])),
    all: classified.map((c) => c.file),
    fast: classified.filter((c) => c.fast).map((c) => c.file),
    serial: classified.filter((c) => c.serial).map((c) => c.file),
    paced: classified.filter((c) => c.paced).map((c) => c.file),
    alone: classified.filter((c) => c.alone).map((c) => c.file),
    concurrent: classified.filter((c) => !c.serial && !c.paced).map((c) => c.file),
    light: classified.filter((c) => c.light && !c.serial).map((c) => c.file),
    ownProcess: classified.filter((c) => c.ownProcess).map((c) => c.file),
  };
}

module.exports = { tiers, testFiles, classify };
