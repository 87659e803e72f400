import { expect } from 'chai';
import type { PresetVoice } from '@svc/core';
import { automaticBasePresets, NEURAL_BASE_LIMIT } from '../../src/composition/neural-speech.js';

const voice = (name: string, engine: string, language: string, gender: PresetVoice['gender']): PresetVoice => ({
  name,
  engine,
  engineVoice: name,
  language,
  gender,
  description: '',
});

describe('automatic base voices for cloning (SVC_VOICE_BASE_PRESETS unset)', () => {
  it("without neural voices: Flite's slt, rms, awb", () => {
    expect(automaticBasePresets([voice('slt', 'flite', 'en-us', 'female'), voice('espeak-en', 'espeak', 'en', 'neutral')])).to.deep.equal([
      'slt',
      'rms',
      'awb',
    ]);
  });

  it('with neural voices: English ones first, genders alternating, at most the limit; never upstream voices', () => {
    const voices = [
      voice('slt', 'flite', 'en-us', 'female'),
      voice('upstream-alloy', 'upstream', 'en', 'neutral'),
      voice('kokoro-ff_siwis', 'kokoro', 'fr', 'female'),
      ...['a', 'b', 'c', 'd'].map((x) => voice(`kokoro-af_${x}`, 'kokoro', 'en-us', 'female')),
      ...['a', 'b'].map((x) => voice(`kokoro-am_${x}`, 'kokoro', 'en-us', 'male')),
      voice('piper-en_us-lessac-medium', 'piper', 'en-us', 'neutral'),
    ];
    const chosen = automaticBasePresets(voices);
    expect(chosen).to.have.length(NEURAL_BASE_LIMIT);
    expect(chosen.slice(0, 3)).to.deep.equal(['kokoro-af_a', 'kokoro-am_a', 'piper-en_us-lessac-medium']);
    expect(chosen).to.not.include.members(['slt', 'upstream-alloy', 'kokoro-ff_siwis']);
  });

  it('neural voices in other languages only: those', () => {
    expect(
      automaticBasePresets([voice('kokoro-ff_siwis', 'kokoro', 'fr', 'female'), voice('slt', 'flite', 'en-us', 'female')]),
    ).to.deep.equal(['kokoro-ff_siwis']);
  });
});
