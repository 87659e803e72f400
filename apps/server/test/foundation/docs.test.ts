import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUPPORTED_TAG_VALUES } from '@svc/core';
import { CONFIG_KEYS } from '../../src/config.js';
import { VOICE_SETTING_KEYS } from '../../src/composition/voices.js';
import { REALTIME_SETTING_KEYS } from '../../src/composition/realtime.js';
import { REALTIME_AUDIO_SETTING_KEYS } from '../../src/composition/realtime-audio.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

/** Documentation that drifts from the code is worse than none: these fail when it does. */
describe('docs stay true to the code', () => {
  it('README documents every SVC_* setting the server reads', () => {
    const readme = read('README.md');
    for (const key of CONFIG_KEYS) expect(readme, key).to.contain(`\`${key}\``);
  });

  it('docs/voices.md and docs/realtime.md document every setting of their capability', () => {
    const voices = read('docs/voices.md');
    for (const key of VOICE_SETTING_KEYS) expect(voices, key).to.contain(`\`${key}\``);
    const realtime = read('docs/realtime.md');
    for (const key of [...REALTIME_SETTING_KEYS, ...REALTIME_AUDIO_SETTING_KEYS]) expect(realtime, key).to.contain(`\`${key}\``);
  });

  it('docs/speech.md lists every supported inline tag value', () => {
    const doc = read('docs/speech.md');
    for (const [kind, values] of Object.entries(SUPPORTED_TAG_VALUES)) {
      expect(doc).to.contain(`<|${kind}:...|>`);
      for (const value of Object.keys(values)) expect(doc, `${kind}:${value}`).to.contain(`\`${value}\``);
    }
  });
});
