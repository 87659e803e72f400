import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DELIVERY_INSTRUCTIONS, OPENAI_MODEL_ALIASES, OPENAI_VOICE_NAMES, SUPPORTED_TAG_VALUES } from '@svc/core';
import { ALL_MODULES } from '../../src/composition/modules.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

/** Documentation that drifts from the code is worse than none: these fail when it does. */
describe('docs stay true to the code', () => {
  for (const module of ALL_MODULES) {
    it(`${module.docs} documents every SVC_* setting of the ${module.name} module`, () => {
      const doc = read(module.docs);
      for (const key of Object.keys(module.settings)) expect(doc, key).to.contain(`\`${key}\``);
    });
  }

  it('docs/speech.md lists every supported inline tag value', () => {
    const doc = read('docs/speech.md');
    for (const [kind, values] of Object.entries(SUPPORTED_TAG_VALUES)) {
      expect(doc).to.contain(`<|${kind}:...|>`);
      for (const value of Object.keys(values)) expect(doc, `${kind}:${value}`).to.contain(`\`${value}\``);
    }
  });

  it('docs/speech.md has the instructions table row for row, and every OpenAI voice name', () => {
    const doc = read('docs/speech.md');
    for (const row of DELIVERY_INSTRUCTIONS) expect(doc, row.tag).to.contain(`| \`${row.tag}\` | ${row.words.join(', ')} |`);
    for (const { name } of OPENAI_VOICE_NAMES) expect(doc, name).to.contain(`\`${name}\``);
  });

  it("docs/compatibility.md names every OpenAI model alias", () => {
    const doc = read('docs/compatibility.md');
    for (const names of Object.values(OPENAI_MODEL_ALIASES)) for (const name of names) expect(doc, name).to.contain(`\`${name}\``);
  });
});
