// One mocha run over every package's compiled tests; the reporter adds the
// "N passed, N failed" line CI reads.
module.exports = {
  spec: ['packages/*/dist/test/**/*.test.js', 'apps/*/dist/test/**/*.test.js'],
  reporter: require('path').join(__dirname, 'scripts', 'summary-reporter.cjs'),
  timeout: 30000,
  exit: true,
};
