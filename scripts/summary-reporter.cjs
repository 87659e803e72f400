// Mocha's spec reporter plus a final "N passed, N failed" line (CI reads that line).
// With SVC_TEST_TIMINGS set to a file path, it also appends one JSON line per test file as the file
// finishes ({"file","seconds","cpu"}): the wall time from the file's first suite starting to its
// last ending, hooks included (where servers start), and the CPU seconds the process and the
// children it waited for (the server processes a test starts and stops) spent meanwhile; at the end
// one line {"process": cpu} for the whole process, start-up included. scripts/run-tests.cjs reads
// these to list the slowest files and whether the suite is bound by the CPU or by waiting.
// Serial mode only: in mocha's parallel mode a reporter receives a file's events in one batch after
// the file has run, so the times would be meaningless.
const fs = require('fs');
const path = require('path');
const Mocha = require('mocha');
const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const timingsPath = process.env.SVC_TEST_TIMINGS;
    if (timingsPath) recordFileTimes(runner, timingsPath);
    // Mocha's list of failures names tests by their titles only: which files they are in, for a
    // process that ran several files (scripts/run-tests.cjs repeats the lines in its summary).
    const failedFiles = new Set();
    runner.on(EVENT_TEST_FAIL, (test) => {
      const file = test.file || (test.parent && test.parent.file);
      if (file) failedFiles.add(file);
    });
    runner.once(EVENT_RUN_END, () => {
      for (const file of failedFiles) process.stdout.write(`  failed in ${path.relative(process.cwd(), file)}\n`);
      const s = runner.stats || {};
      const skipped = s.pending ? `, ${s.pending} skipped` : '';
      process.stdout.write(`\n${s.passes || 0} passed, ${s.failures || 0} failed${skipped}\n`);
    });
  }
}

/** A file's time: each top-level suite's begin-to-end, one line each (a file may hold several: the reader sums them). */
function recordFileTimes(runner, timingsPath) {
  const started = new Map();
  const isFileSuite = (suite) => suite.file && suite.parent && suite.parent.root;
  runner.on(EVENT_SUITE_BEGIN, (suite) => {
    if (isFileSuite(suite)) started.set(suite, { wall: process.hrtime.bigint(), cpu: cpuSeconds() });
  });
  runner.on(EVENT_SUITE_END, (suite) => {
    const start = started.get(suite);
    if (!start) return;
    const elapsed = Number(process.hrtime.bigint() - start.wall) / 1e9;
    started.delete(suite);
    const cpu = cpuSeconds() - start.cpu;
    fs.appendFileSync(timingsPath, JSON.stringify({ file: suite.file, seconds: round(elapsed), cpu: round(cpu) }) + '\n');
  });
  runner.once(EVENT_RUN_END, () => fs.appendFileSync(timingsPath, JSON.stringify({ process: round(cpuSeconds()) }) + '\n'));
}

/**
 * CPU seconds of this process and of its children that have been waited for, from /proc/self/stat
 * (utime, stime, cutime, cstime, in clock ticks); 0 where there is no /proc.
 */
function cpuSeconds() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // the fields after the command name, which is in parentheses and may hold spaces
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is the state (field 3 of proc(5)): utime..cstime are fields 14-17
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
/** USER_HZ: 100 on every Linux that Node supports (sysconf(_SC_CLK_TCK), which Node does not expose). */
const CLOCK_TICKS = 100;
const round = (s) => Number(s.toFixed(3));

module.exports = SummaryReporter;
