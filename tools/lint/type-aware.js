// Type-aware rules that find real bugs (a promise nobody awaits or catches; a promise passed where a
// callback's result is ignored). They need the TypeScript compiler's JavaScript API, which TypeScript 7
// no longer has, so this workspace keeps TypeScript 5 for the linter alone; the build still uses 7.
import tseslint from 'typescript-eslint';

export function typeAwareRules(files) {
  return {
    files,
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: new URL('../..', import.meta.url).pathname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  };
}
