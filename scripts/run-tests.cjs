#!/usr/bin/env node
// Runs a test tier (scripts/test-tiers.cjs decides which files) as several mocha processes and
// prints one summary: each group's time, the 10 slowest files, then "N passed, N failed" last.
//   node scripts/run-tests.cjs fast     the fast tier (npm run test:fast)
//   node scripts/run-tests.cjs all      everything (npm test)
//   node scripts/run-tests.cjs concurrent   npm test's first group only (the files beside others)
//   node scripts/run-tests.cjs serial   npm test's later group only (the paced and the serial files)
//   add --list to print the files a tier runs, one a line, and run nothing (with --lanes, each after
//   the lane it runs in: main, light or paced, "main after paced" for a file tagged alone, and a tab);
//   add --lint to run `npm run lint` beside the first group (npm test), in a lane of its own at the
//   lowest CPU priority (nice 19): it takes the CPU the group's files leave idle and does not hold one
//   of their processes; its failure is counted as one failed. (Beside the last group's real-time
//   files it slowed them even at nice 19, and a wall-clock bound among them failed.)
//   The linters read only the sources, which the tests never write (their files go to ignored
//   folders: test-artifacts/, data/, the system's temporary folder).
// Why processes and not mocha --parallel: a reporter in parallel mode gets a file's events in one
// batch after the file ran (no per-file times), and a file that starts a real server, a browser or
// real-time audio must not share the machine with a CPU ratio. Here:
//   - the fast files run as a few mocha processes (shards), each over a share of the files;
//   - every other file that tolerates neighbours runs in a batch: up to four files (SVC_TEST_BATCH_FILES)
//     one after another in one mocha process, so that a server file's process start (Node, mocha, the
//     server's modules, the first engine proofs: about as much CPU as its tests) is paid once per batch;
//     a file tagged own-process, or one that holds something exclusively, has a process to itself. Up
//     to SVC_TEST_JOBS of these processes at once (default: the number of CPUs plus one), beside the
//     shards; the files tagged light (they mostly wait) run in a lane of their own beside them,
//     LIGHT_JOBS at once, so that a file that waits a minute on real-time audio does not hold one of
//     the processes the CPU work needs;
//   - then, in one group of two lanes, the paced files (real-time audio that mostly waits) two at a
//     time, and beside them the serial files one at a time, no serial file beside another and no
//     CPU-bound file beside either (the serial files go largest first: the browsers overlap the paced
//     files, the short CPU ratios and the load monitor mostly come after them).
// Exit status 1 when anything failed, a process crashed (no summary line) or outlived its time.
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { tiers } = require('./test-tiers.cjs');

const REPO = path.resolve(__dirname, '..');
// The tree whose tests are run: this repository, or (for the runner's own test) another folder.
const ROOT = process.env.SVC_TEST_ROOT ? path.resolve(process.env.SVC_TEST_ROOT) : REPO;
const MOCHA = require.resolve('mocha/bin/mocha.js');
const SUMMARY = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/m;
// A process that has not finished after this long is stopped and counted as a failure (a hang must
// not eat CI's whole budget).
const PROCESS_LIMIT_S = Number(process.env.SVC_TEST_PROCESS_LIMIT_S || 1200);
// How many paced files (`// @test-tier paced`) run at once: two, one a core on the 2-core CI machine.
const PACED_JOBS = 2;
// How many light files (`// @test-tier light`) run at once beside the concurrent group's others.
const LIGHT_JOBS = 2;
// How many of the concurrent group's other files share one mocha process (one after another).
const BATCH_FILES = Math.max(1, Number(process.env.SVC_TEST_BATCH_FILES) || 4);

function main(argv) {
  const tierName = argv.find((a) => !a.startsWith('--')) || 'all';
  if (!['fast', 'all', 'concurrent', 'serial'].includes(tierName))
    throw new Error(`unknown tier "${tierName}" (fast, all, concurrent or serial)`);
  const t = tiers(ROOT);
  // one more process than CPUs: most files spend much of their time waiting on servers and sockets
  const jobs = Math.max(1, Number(process.env.SVC_TEST_JOBS) || os.availableParallelism() + 1);
  const plan =
    tierName === 'concurrent'
      ? planOf(t, 'all', jobs).slice(0, 1)
      : tierName === 'serial'
        ? planOf(t, 'all', jobs).slice(1)
        : planOf(t, tierName, jobs);
  if (argv.includes('--list')) {
    // --lanes: each file after the lane it runs in (main, light, paced; "main after paced" for a
    // file tagged alone) and a tab
    const lanes = argv.includes('--lanes');
    // a reader that stops early (`--list | head`) ends the listing, not with a stack trace
    process.stdout.on('error', (err) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(0);
    });
    const laneLabel = (run) => `${run.lane || 'main'}${run.after ? ` after ${run.after}` : ''}\t`;
    const lines = plan
      .flatMap((g) => g.runs)
      .flatMap((run) => run.files.map((file) => (lanes ? laneLabel(run) : '') + path.relative(ROOT, file) + '\n'));
    // done once the whole listing has left: the exit that follows must not cut a pipe's pending
    // output (a busy CI run once read 278 of 305 lines)
    return new Promise((resolve) => process.stdout.write(lines.join(''), () => resolve(0)));
  }
  if (argv.includes('--lint')) {
    const first = plan[0];
    first.concurrency = { ...first.concurrency, lint: 1 };
    first.runs.unshift({
      command: ['nice', '-n', '19', 'npm', 'run', 'lint'],
      label: 'npm run lint',
      lane: 'lint',
      files: [],
      exclusive: [],
    });
  }
  return runPlan(plan, jobs);
}

/** Groups in order; each group's runs (one mocha process each) go `concurrency` at a time. */
function planOf(t, tierName, jobs) {
  const lone = (f) => ({ files: [f], exclusive: t.exclusive.get(f) || [] });
  // a file that holds something exclusively runs in a process of its own, so that the hold is short;
  // so does one tagged own-process (it reads its own process)
  const ownProcess = new Set(t.ownProcess);
  const shardable = (f) => !t.exclusive.has(f) && !ownProcess.has(f);
  if (tierName === 'fast') {
    return [
      {
        name: 'fast tier',
        concurrency: { main: jobs },
        runs: [...t.fast.filter((f) => !shardable(f)).map(lone), ...shards(t.fast.filter(shardable), jobs)],
      },
    ];
  }
  const fast = new Set(t.fast);
  const shared = t.concurrent.filter((f) => fast.has(f) && shardable(f));
  const light = new Set(t.light);
  const others = t.concurrent.filter((f) => (!fast.has(f) || !shardable(f)) && !light.has(f));
  const single = others.filter((f) => !shardable(f)).map(lone);
  const batched = batches(others.filter(shardable), BATCH_FILES);
  const waiting = longestRunsFirst(
    t.light.map((f) => ({ ...lone(f), lane: 'light' })),
    lastTimes(),
  );
  return [
    // the long runs first, so the shards fill the gaps at the end
    {
      name: 'concurrent (fast files + files beside others)',
      concurrency: { main: jobs, light: LIGHT_JOBS },
      runs: [...longestRunsFirst([...single, ...batched], lastTimes()), ...shards(shared, jobs), ...waiting],
    },
    // Then two lanes side by side, neither of them CPU-bound: the paced files two at a time (each
    // mostly waits on its own audio clock, so a second one fills the idle core), longest first so that
    // their lanes end together; and the serial files one at a time, none beside another serial file.
    {
      name: 'paced + serial (real-time audio two at a time, beside browsers and bounds one at a time)',
      concurrency: { paced: PACED_JOBS, main: 1 },
      runs: [
        ...longestRunsFirst(
          t.paced.map((f) => ({ ...lone(f), lane: 'paced' })),
          lastTimes(),
        ),
        ...bySizeDescending(t.serial).map((f) => (t.alone.includes(f) ? { ...lone(f), after: 'paced' } : lone(f))),
      ],
    },
  ];
}

/** `files` dealt into `n` runs of similar total source size. */
function shards(files, n) {
  const runs = Array.from({ length: Math.min(n, files.length) }, () => ({ files: [], size: 0 }));
  for (const file of bySizeDescending(files)) {
    const lightest = runs.reduce((a, b) => (b.size < a.size ? b : a));
    lightest.files.push(file);
    lightest.size += fs.statSync(file).size;
  }
  return runs.map((r) => ({ files: r.files.sort(), exclusive: [] }));
}

/**
 * `files` in runs of up to `n`, neighbours in path order (files of one area load the same modules).
 * A process's start (Node, mocha, the server's modules, the first engine proofs) costs a server
 * file about as much CPU as its tests do; a batch pays it once, and the group is CPU-bound.
 */
function batches(files, n) {
  const sorted = [...files].sort();
  const runs = [];
  for (let i = 0; i < sorted.length; i += n) runs.push({ files: sorted.slice(i, i + n), exclusive: [] });
  // a batch's output and failures name its files (a shard of the fast tier has too many to name)
  for (const run of runs)
    if (run.files.length > 1) run.label = `${run.files.length} files: ${run.files.map((f) => path.relative(ROOT, f)).join(', ')}`;
  return runs;
}

/**
 * Runs longest first by the last run's times of their files (test-artifacts/test-times.json) where it
 * knows them all, so that no long run starts last and runs alone at the end; runs with a file it does
 * not know (a fresh clone, a new file) go first, by their files' size.
 */
function longestRunsFirst(runs, seconds) {
  const total = (run, of) => run.files.reduce((sum, f) => sum + of(f), 0);
  const known = runs.filter((r) => r.files.every((f) => seconds.has(f)));
  const unknown = runs.filter((r) => !known.includes(r));
  return [
    ...unknown.sort((a, b) => total(b, (f) => fs.statSync(f).size) - total(a, (f) => fs.statSync(f).size)),
    ...known.sort((a, b) => total(b, (f) => seconds.get(f)) - total(a, (f) => seconds.get(f))),
  ];
}

/** file -> seconds from the last run's test-artifacts/test-times.json; empty when there is none. */
function lastTimes() {
  try {
    const { files } = JSON.parse(fs.readFileSync(path.join(ROOT, 'test-artifacts', 'test-times.json'), 'utf8'));
    return new Map(files.map((f) => [path.join(ROOT, f.file), f.seconds]));
  } catch {
    return new Map();
  }
}

function bySizeDescending(files) {
  return files
    .map((f) => [f, fs.statSync(f).size])
    .sort((a, b) => b[1] - a[1])
    .map(([f]) => f);
}

async function runPlan(plan, jobs) {
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const fileSeconds = [];
  const groupSeconds = [];
  const failures = [];
  const timingsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-timings-'));
  const started = process.hrtime.bigint();
  process.stdout.write(
    `${plan.reduce((n, g) => n + g.runs.reduce((m, r) => m + r.files.length, 0), 0)} test files, up to ${jobs} processes at once\n`,
  );
  let index = 0;
  for (const group of plan) {
    const groupStarted = process.hrtime.bigint();
    let groupCpu = 0;
    await runConcurrently(group.runs, group.concurrency, async (run) => {
      const result = run.command ? await runCommand(run.command) : await runMocha(run.files, path.join(timingsDir, `${index++}.jsonl`));
      totals.passed += result.passed;
      totals.failed += result.failed;
      totals.skipped += result.skipped;
      fileSeconds.push(...result.fileSeconds);
      groupCpu += result.cpu;
      printRun(run.label || run.files, result);
      if (result.failed > 0) failures.push(failureOf(run.label || run.files, result));
    });
    groupSeconds.push([group.name, secondsSince(groupStarted), groupCpu]);
  }
  fs.rmSync(timingsDir, { recursive: true, force: true });
  writeTimes(fileSeconds);
  printSummary(groupSeconds, secondsSince(started), fileSeconds, totals, failures);
  return totals.failed > 0 ? 1 : 0;
}

/**
 * Runs `runs` in order, each lane (`run.lane`, else main) `concurrency[lane]` at a time, never two
 * that hold the same thing (`exclusive`) at once: a run whose holds are taken or whose lane is full
 * waits and a later one goes first.
 */
function runConcurrently(runs, concurrency, execute) {
  const queue = [...runs];
  const held = new Set();
  const active = new Map();
  const laneOf = (run) => run.lane || 'main';
  const room = (run) => (active.get(laneOf(run)) || 0) < concurrency[laneOf(run)];
  // `after`: a lane that must have ended (nothing of it queued or running) before this run starts
  const laneEnded = (lane) => !(active.get(lane) > 0) && !queue.some((r) => laneOf(r) === lane);
  const ready = (run) => room(run) && (!run.after || laneEnded(run.after)) && run.exclusive.every((x) => !held.has(x));
  let inFlight = 0;
  return new Promise((resolve, reject) => {
    const next = () => {
      if (queue.length === 0 && inFlight === 0) return resolve();
      for (;;) {
        const i = queue.findIndex(ready);
        if (i < 0) return;
        const [run] = queue.splice(i, 1);
        inFlight += 1;
        active.set(laneOf(run), (active.get(laneOf(run)) || 0) + 1);
        for (const x of run.exclusive) held.add(x);
        execute(run).then(() => {
          inFlight -= 1;
          active.set(laneOf(run), active.get(laneOf(run)) - 1);
          for (const x of run.exclusive) held.delete(x);
          next();
        }, reject);
      }
    };
    next();
  });
}

/**
 * A command that is not a test file (the linters): 0 passed, 1 failed when it exits non-zero. It runs
 * under bash, whose `times` then gives the CPU of everything it started (the group's CPU share counts it).
 */
function runCommand(command) {
  return new Promise((resolve) => {
    const began = process.hrtime.bigint();
    const script = '"$@"; status=$?; times; exit $status';
    const child = spawn('bash', ['-c', script, 'bash', ...command], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    running.add(child.pid);
    child.on('close', (code) => {
      running.delete(child.pid);
      const failed = code === 0 ? 0 : 1;
      const { cpu, rest } = childrenCpu(output);
      resolve({
        passed: 0,
        failed,
        skipped: 0,
        output: rest.trimEnd(),
        problem: failed ? `exited ${code}` : '',
        wall: secondsSince(began),
        cpu,
        fileSeconds: [],
      });
    });
  });
}

const TIMES_LINE = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/;

/** The CPU seconds of bash's children from the last line `times` printed, and the output without its two lines. */
function childrenCpu(output) {
  const lines = output.trimEnd().split('\n');
  const m = TIMES_LINE.exec(lines.at(-1) || '');
  if (!m || !TIMES_LINE.test(lines.at(-2) || '')) return { cpu: 0, rest: output };
  return { cpu: Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]), rest: lines.slice(0, -2).join('\n') };
}

/** One mocha process over `files`; its counts from the reporter's last line, its files' times. */
function runMocha(files, timingsPath) {
  return new Promise((resolve) => {
    const began = process.hrtime.bigint();
    const child = spawn(process.execPath, [MOCHA, '--config', path.join(REPO, '.mocharc.cjs'), ...files], {
      cwd: ROOT,
      env: { ...process.env, SVC_TEST_TIMINGS: timingsPath },
      // its own process group, so that a hung run is stopped with the servers it started
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let timedOut = false;
    const limit = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, PROCESS_LIMIT_S * 1000);
    running.add(child.pid);
    child.on('close', (code) => {
      clearTimeout(limit);
      running.delete(child.pid);
      const wall = secondsSince(began);
      const m = SUMMARY.exec(
        output
          .split('\n')
          .filter((l) => SUMMARY.test(l))
          .pop() || '',
      );
      const counts = m ? { passed: +m[1], failed: +m[2], skipped: +(m[3] || 0) } : { passed: 0, failed: 0, skipped: 0 };
      // a crash, a hang or a non-zero exit with no failure counted is one failure
      let problem = '';
      if (timedOut) problem = `stopped after ${PROCESS_LIMIT_S} s`;
      else if (!m) problem = `exited ${code} without a summary (crashed?)`;
      else if (code !== 0 && counts.failed === 0) problem = `exited ${code}`;
      if (problem) counts.failed += 1;
      resolve({
        ...counts,
        output: output.replace(new RegExp(SUMMARY.source, 'gm'), '').trimEnd(),
        problem,
        wall,
        ...fileTimes(files, timingsPath, wall),
      });
    });
  });
}

/**
 * Per-file [file, seconds, cpu seconds] from the reporter's record: a shard's files each from its own
 * suites; a lone file's whole process (wall time and CPU, start-up included).
 */
function fileTimes(files, timingsPath, wall) {
  const records = fs.existsSync(timingsPath)
    ? fs
        .readFileSync(timingsPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  const processCpu = records.reduce((cpu, r) => (r.process === undefined ? cpu : r.process), 0);
  if (files.length === 1) return { cpu: processCpu, fileSeconds: [[files[0], wall, processCpu]] };
  const sums = new Map();
  for (const { file, seconds, cpu } of records.filter((r) => r.file)) {
    const [s, c] = sums.get(file) || [0, 0];
    sums.set(file, [s + seconds, c + (cpu || 0)]);
  }
  return { cpu: processCpu, fileSeconds: [...sums].map(([file, [s, c]]) => [file, s, c]) };
}

const running = new Set();
function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const pid of running) killGroup(pid);
    process.exit(130);
  });
}

function labelOf(files) {
  return typeof files === 'string' ? files : files.length === 1 ? path.relative(ROOT, files[0]) : `${files.length} fast files`;
}

function printRun(files, result) {
  const label = labelOf(files);
  const counts = `${result.passed} passed, ${result.failed} failed${result.skipped ? `, ${result.skipped} skipped` : ''}`;
  const times = `${result.wall.toFixed(1)} s, CPU ${result.cpu.toFixed(1)} s`;
  process.stdout.write(`\n=== ${label}: ${counts}, ${times}${result.problem ? ` (${result.problem})` : ''}\n`);
  process.stdout.write(result.output + '\n');
}

const FAILURE_LINES = 30;

/**
 * What failed in a run, for the summary at the end: CI shows only the tail of a long log, so the
 * failing tests' titles and first error lines must be there, not only in the run's own output far above.
 */
function failureOf(files, result) {
  const lines = result.output.split('\n');
  const start = lines.findIndex((l) => /^\s+\d+ failing\s*$/.test(l));
  const body = start < 0 ? lines.slice(-FAILURE_LINES) : lines.slice(start + 1);
  const kept = body.filter((l) => l.trim() !== '' && !/^\s+at /.test(l)).slice(0, FAILURE_LINES);
  return [`${labelOf(files)}${result.problem ? ` (${result.problem})` : ''}:`, ...kept.map((l) => `    ${l.trim()}`)];
}

/** Every file's time, slowest first, in test-artifacts/test-times.json (ignored by git): for tuning the tiers. */
function writeTimes(fileSeconds) {
  const dir = path.join(ROOT, 'test-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  const sorted = [...fileSeconds]
    .sort((a, b) => b[1] - a[1])
    .map(([file, s, cpu]) => ({ file: path.relative(ROOT, file), seconds: Number(s.toFixed(1)), cpu: Number(cpu.toFixed(1)) }));
  fs.writeFileSync(path.join(dir, 'test-times.json'), JSON.stringify({ loadAverage: os.loadavg(), files: sorted }, null, 2) + '\n');
}

function printSummary(groupSeconds, totalSeconds, fileSeconds, totals, failures) {
  const out = ['', 'Time by group:'];
  // CPU against what the machine's cores could have given: far under 100% means the group waits
  // (sleeps, real-time audio, timers) and more processes at once would shorten it
  const cores = os.availableParallelism();
  for (const [name, s, cpu] of groupSeconds)
    out.push(
      `  ${s.toFixed(1).padStart(7)} s  ${name} (CPU ${cpu.toFixed(0)} s, ${((100 * cpu) / (s * cores)).toFixed(0)}% of ${cores} cores)`,
    );
  out.push(
    `  ${totalSeconds.toFixed(1).padStart(7)} s  total (tests only; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  // beside each, the CPU the file (and the server processes it started and stopped) used: a file far
  // under its wall time waits, one near it computes
  out.push('The 10 slowest test files:');
  for (const [file, s, cpu] of [...fileSeconds].sort((a, b) => b[1] - a[1]).slice(0, 10))
    out.push(`  ${s.toFixed(1).padStart(7)} s  ${`CPU ${cpu.toFixed(1)} s`.padStart(12)}  ${path.relative(ROOT, file)}`);
  if (failures.length > 0) out.push('', 'What failed:', ...failures.flatMap((f) => f.map((l) => `  ${l}`)));
  out.push('', `${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
  process.stdout.write(out.join('\n') + '\n');
}

function secondsSince(t) {
  return Number(process.hrtime.bigint() - t) / 1e9;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    // after what is still queued for a pipe has left (an exit drops it): the summary line is last
    (code) => process.stdout.write('', () => process.exit(code)),
    (err) => {
      process.stderr.write(`${err.stack || err}\n0 passed, 1 failed\n`);
      process.exit(1);
    },
  );
}

module.exports = { planOf };
