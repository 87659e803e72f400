import { expect } from 'chai';
import { NEUTRAL_PROSODY } from '@svc/core';
import { espeakProsody } from '../src/espeak/espeak-prosody.js';
import { fliteSynthesisPlan } from '../src/flite/flite-synthesis-plan.js';
import { fliteVoiceSpec } from '../src/flite/flite-voices.js';

describe('prosody mapping onto engine knobs', () => {
  it('espeak: neutral prosody is espeak’s defaults; values are clamped to what espeak honours', () => {
    expect(espeakProsody(NEUTRAL_PROSODY)).to.deep.equal({ rate: 175, pitch: 50, range: 50 });
    expect(espeakProsody({ ...NEUTRAL_PROSODY, rate: 2 }).rate).to.equal(350);
    expect(espeakProsody({ ...NEUTRAL_PROSODY, rate: 10 }).rate).to.equal(450);
    expect(espeakProsody({ ...NEUTRAL_PROSODY, pitch: 1.3 }).pitch).to.be.within(70, 80);
    expect(espeakProsody({ ...NEUTRAL_PROSODY, pitch: 0.8 }).pitch).to.be.within(15, 25);
    expect(espeakProsody({ ...NEUTRAL_PROSODY, pitchRange: 0 }).range).to.equal(0);
  });

  it('flite: neutral prosody adds no feature; rate and pitch become duration_stretch and f0 targets', () => {
    const slt = fliteVoiceSpec('slt')!;
    expect(fliteSynthesisPlan(slt, NEUTRAL_PROSODY)).to.deep.equal({ args: [], playbackRate: 1 });
    const plan = fliteSynthesisPlan(slt, { rate: 2, pitch: 1.2, pitchRange: 0.5, volume: 1 });
    expect(plan.args).to.deep.equal([
      '--setf',
      'int_f0_target_mean=204',
      '--setf',
      'int_f0_target_stddev=15',
      '--setf',
      'duration_stretch=0.5',
    ]);
    const rms = fliteSynthesisPlan(fliteVoiceSpec('rms')!, { rate: 1, pitch: 1.25, pitchRange: 1, volume: 1 });
    expect(rms).to.deep.equal({ args: ['--setf', 'duration_stretch=1.25'], playbackRate: 1.25 });
  });
});
