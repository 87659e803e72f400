import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUPPORTED_TAG_VALUES } from '@svc/core';
import { CONFIG_KEYS } from '../../src/config.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

/** Documentation that drifts from the code is worse than none: these fail when it does. */
describe('docs stay true to the code', () => {
  it('README documents every SVC_* setting the server reads', () => {
    const readme = read('README.md');
    for (const key of CONFIG_KEYS) expect(readme, key).to.contain(`\`${key}\``);
  });

  it('docs/speech.md lists every supported inline tag value', () => {
    const doc = read('docs/speech.md');
    for (const [kind, values] of Object.entries(SUPPORTED_TAG_VALUES)) {
      expect(doc).to.contain(`<|${kind}:...|>`);
      for (const value of Object.keys(values)) expect(doc, `${kind}:${value}`).to.contain(`\`${value}\``);
    }
  });
});
