import { expect } from 'chai';
import type { PresetVoice } from '../../src/speech/speech-synthesizer.js';
import { VoiceCatalog } from '../../src/speech/voice-catalog.js';
import { preset, ToneSynthesizer } from '../fakes/index.js';

/** An engine that also builds voices by name (like Kokoro blends `kokoro-a+b`). */
class BlendingSynthesizer extends ToneSynthesizer {
  resolveVoice(name: string): PresetVoice | undefined {
    return /^mix-[a-z]+\+[a-z]+$/.test(name) ? preset(name, this.engine, 'en-us') : undefined;
  }
}

describe('VoiceCatalog voices resolved by name', () => {
  it('finds listed presets first, then asks the engines that resolve names; others stay unknown', () => {
    const blending = new BlendingSynthesizer('mixer', [preset('mix-a', 'mixer', 'en-us')]);
    const catalog = new VoiceCatalog([new ToneSynthesizer('tone', [preset('slt', 'tone', 'en-us')]), blending]);
    expect(catalog.get('slt')!.engine).to.equal('tone');
    const resolved = catalog.get('mix-a+b')!;
    expect(resolved).to.include({ name: 'mix-a+b', engine: 'mixer' });
    expect(catalog.engineFor(resolved)).to.equal(blending);
    expect(catalog.get('mix-a+')).to.equal(undefined);
    expect(catalog.list().map((v) => v.name)).to.deep.equal(['slt', 'mix-a']); // resolved voices are not listed
  });
});
