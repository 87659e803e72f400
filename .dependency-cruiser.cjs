// The whole-graph rules of docs/architecture.md ("Dependency rules") that a per-file lint rule cannot
// see: no import cycle and no orphan file. `npm run lint` runs it on packages/ and apps/. The package
// boundaries themselves stay in ESLint (svc/package-boundaries): it also reads modules loaded through
// createRequire(), which dependency-cruiser does not, and needs no build to resolve @svc/* names.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'modules that import each other in a circle cannot be read, tested or moved one at a time (type-only imports do not count: they are gone at run time)',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-orphans',
      comment: 'a source file that imports nothing and that nothing imports is dead code (or a forgotten entry point)',
      severity: 'error',
      from: {
        orphan: true,
        pathNot: [
          '\\.d\\.ts$',
          // An AudioWorklet module: the browser loads it by URL (audioWorklet.addModule), nothing imports it.
          '^packages/playground-web/src/capture-worklet\\.ts$',
        ],
      },
      to: {},
    },
  ],
  options: {
    // TypeScript's own parser (tools/lint holds TypeScript 5: the build's TypeScript 7 has no JavaScript
    // API), so type-only imports are seen and told apart.
    tsPreCompilationDeps: true,
    doNotFollow: { path: ['node_modules', '/dist/'] },
  },
};
