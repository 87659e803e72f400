// Settings every mocha process of the suite shares. No `spec` here on purpose: mocha adds files
// named on the command line to a config's `spec` list instead of replacing it, so a spec list here
// would make every "run only these files" command run the whole suite. The tiers' file lists come
// from scripts/test-tiers.cjs (run by scripts/run-tests.cjs); to run some files yourself:
//   npx mocha --config .mocharc.cjs apps/server/dist/test/speech/speech-api.test.js
// The reporter adds the "N passed, N failed" line CI reads.
module.exports = {
  reporter: require('path').join(__dirname, 'scripts', 'summary-reporter.cjs'),
  timeout: 30000,
  exit: true,
};
