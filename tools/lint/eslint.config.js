// The type-aware rules that find real bugs in the sources (run by `npm run lint` after the architecture
// rules of the root eslint.config.js): a promise nobody awaits or catches, a promise passed where a
// callback's result is ignored, an await on something that is not a promise. They need TypeScript's
// JavaScript API, which TypeScript 7 (the build's compiler) no longer has, so this folder is a small
// project of its own holding TypeScript 5 for the linter alone (installed by the root postinstall).
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['**/dist/**', '**/node_modules/**'] },
  {
    files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: new URL('../..', import.meta.url).pathname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
];
