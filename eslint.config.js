// The machine-checked architecture rules (docs/architecture.md, "Dependency rules"), run by `npm test`
// (its `lint` step) before the build. Not a style checker: only rules that keep the hexagon intact.
// TypeScript 7 has no JavaScript API, so the TypeScript syntax is read by Babel's parser.
import babelParser from '@babel/eslint-parser';
import { packageBoundaries } from './scripts/lint/package-boundaries.js';

const CLOCK = 'the core reads time through its Clock port (clock.now())';

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', 'scripts/**', 'tools/**', '.ci/**', '*.config.js', '*.cjs'] },
  {
    files: ['packages/*/src/**/*.ts', 'packages/*/test/**/*.ts', 'apps/*/src/**/*.ts', 'apps/*/test/**/*.ts', 'apps/*/bench/**/*.ts'],
    languageOptions: {
      parser: babelParser,
      parserOptions: {
        requireConfigFile: false,
        babelOptions: {
          babelrc: false,
          configFile: false,
          presets: ['@babel/preset-typescript'],
          parserOpts: { plugins: ['decorators-legacy'] },
        },
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { svc: { rules: { 'package-boundaries': packageBoundaries } } },
    rules: { 'svc/package-boundaries': 'error' },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: CLOCK },
        { object: 'performance', property: 'now', message: CLOCK },
        { object: 'process', message: 'the core does not read the process: settings come in through constructors' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: CLOCK },
        {
          selector: ":matches(ClassProperty, PropertyDefinition)[key.name='status'][value.raw=/^[1-5][0-9][0-9]$/]",
          message:
            'core errors carry no HTTP status: delete this line and add the class with its status to HTTP_STATUS in packages/adapters-http/src/errors/http-status.ts',
        },
      ],
    },
  },
];
