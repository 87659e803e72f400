// Mocha's spec reporter plus a final "N passed, N failed" line (CI reads that line).
// With SVC_TEST_TIMINGS set to a file path, it also appends one JSON line per test file as the file
// finishes ({"file","seconds"}): the wall time from the file's first suite starting to its last
// ending, hooks included (where servers start). scripts/run-tests.cjs reads these to list the
// slowest files. Serial mode only: in mocha's parallel mode a reporter receives a file's events in
// one batch after the file has run, so the times would be meaningless.
const fs = require('fs');
const Mocha = require('mocha');
const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const timingsPath = process.env.SVC_TEST_TIMINGS;
    if (timingsPath) recordFileTimes(runner, timingsPath);
    runner.once(EVENT_RUN_END, () => {
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
    if (isFileSuite(suite)) started.set(suite, process.hrtime.bigint());
  });
  runner.on(EVENT_SUITE_END, (suite) => {
    if (!started.has(suite)) return;
    const elapsed = Number(process.hrtime.bigint() - started.get(suite)) / 1e9;
    started.delete(suite);
    fs.appendFileSync(timingsPath, JSON.stringify({ file: suite.file, seconds: Number(elapsed.toFixed(3)) }) + '\n');
  });
}

module.exports = SummaryReporter;
