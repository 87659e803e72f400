import { expect } from 'chai';
import { VoiceNotFoundError } from '../../src/shared/errors.js';
import { comparableSyllableRates, speakingRateMultiplier } from '../../src/voices/voice-profile.js';
import { BaseVoiceLibrary } from '../../src/voices/base-voices.js';
import { VoiceCatalog } from '../../src/speech/voice-catalog.js';
import { features, PresetToneSynthesizer, testAudio, tone, ZeroCrossingAnalyzer } from '../fakes/index.js';
import { alice, bob, voiceWorld } from './voice-world.js';

const dataUri = (bytes: Uint8Array) => `data:audio/wav;base64,${Buffer.from(bytes).toString('base64')}`;

describe('VoiceCloningService', () => {
  it('a registered voice speaks from its stored profile, without analysing anything per request', async () => {
    const w = voiceWorld();
    const { voice } = await w.register.execute(alice, { refAudio: testAudio(tone(105)) });
    const analyses = w.analyzer.calls;
    const decodes = w.codec.decodes;
    const cloned = await w.cloner.registered(alice, voice.id);
    expect(cloned.basePreset).to.equal('rms');
    expect(w.analyzer.calls).to.equal(analyses);
    expect(w.codec.decodes).to.equal(decodes);
    const conversion = cloned.startConversion(24000);
    expect(Array.from(await conversion.process(new Int16Array([1, -2, 3])))).to.deep.equal([-1, 2, -3]);
    expect(w.converter.started[0]).to.deep.equal(voice.profile);
  });

  it("another key's voice id is not found", async () => {
    const w = voiceWorld();
    const { voice } = await w.register.execute(alice, { refAudio: testAudio(tone(105)) });
    let error: unknown;
    try {
      await w.cloner.registered(bob, voice.id);
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(VoiceNotFoundError);
  });

  it('inline references are analysed once per distinct audio (cached by content id)', async () => {
    const w = voiceWorld();
    const a = await w.cloner.inline(null, dataUri(testAudio(tone(165))), 'one two three');
    const calls = w.analyzer.calls;
    const b = await w.cloner.inline(null, Buffer.from(testAudio(tone(165), 'other-container')).toString('base64'), 'one two three');
    expect(w.analyzer.calls).to.equal(calls);
    expect(a.basePreset).to.equal('slt');
    expect(b.basePreset).to.equal('slt');
    await w.cloner.inline(null, dataUri(testAudio(tone(100))), null);
    expect(w.analyzer.calls).to.equal(calls + 1);
  });

  it('measures each base preset once per process', async () => {
    const w = voiceWorld();
    await w.register.execute(alice, { refAudio: testAudio(tone(105)) });
    await w.register.execute(alice, { refAudio: testAudio(tone(125)) });
    await w.cloner.inline(null, dataUri(testAudio(tone(135))), null);
    expect(w.engine.calls).to.equal(3);
  });

  it('a stored profile whose base preset is gone gets a new base from its measures', async () => {
    const w = voiceWorld();
    const { voice } = await w.register.execute(alice, { refAudio: testAudio(tone(105)) });
    w.repo.rows.get(`key_alice/${voice.id}`)!.profile.base.preset = 'retired-preset';
    expect((await w.cloner.registered(alice, voice.id)).basePreset).to.equal('rms');
  });
});

describe('BaseVoiceLibrary', () => {
  it('falls back to the English default voice when none of the base presets is configured', async () => {
    const engine = new PresetToneSynthesizer({ 'espeak-en': 120, 'espeak-fr': 110 });
    const library = new BaseVoiceLibrary(
      new VoiceCatalog([engine], { en: 'espeak-en' }, 'espeak-en'),
      new ZeroCrossingAnalyzer(),
      ['slt', 'rms'],
      undefined,
      16000,
    );
    const candidates = await library.candidates();
    expect(candidates.map((c) => c.preset)).to.deep.equal(['espeak-en']);
    expect(candidates[0]!.speaker.f0MedianHz).to.be.closeTo(120, 2);
  });

  it('a failed calibration is retried by the next caller', async () => {
    const engine = new PresetToneSynthesizer({ slt: 170 });
    let fail = true;
    const synthesize = engine.synthesize.bind(engine);
    engine.synthesize = async (r) => {
      if (fail) throw new Error('engine not ready');
      return synthesize(r);
    };
    const library = new BaseVoiceLibrary(new VoiceCatalog([engine]), new ZeroCrossingAnalyzer(), ['slt'], undefined, 16000);
    let error: unknown;
    try {
      await library.candidates();
    } catch (err) {
      error = err;
    }
    expect((error as Error).message).to.equal('engine not ready');
    fail = false;
    expect((await library.candidates()).map((c) => c.preset)).to.deep.equal(['slt']);
  });
});

describe('speaking rate', () => {
  it('compares transcript rates when both speakers have one, energy rates otherwise, and clamps', () => {
    const withText = (energy: number, text: number | null) => features(100, { syllableRateFromEnergy: energy, syllableRateFromText: text });
    expect(comparableSyllableRates(withText(3, 5), withText(4, 4))).to.deep.equal([5, 4]);
    expect(comparableSyllableRates(withText(3, null), withText(4, 4))).to.deep.equal([3, 4]);
    expect(speakingRateMultiplier(withText(4.4, null), withText(4, null))).to.be.closeTo(1.1, 1e-9);
    expect(speakingRateMultiplier(withText(10, null), withText(4, null))).to.equal(1.35);
    expect(speakingRateMultiplier(withText(1, null), withText(4, null))).to.equal(0.75);
    expect(speakingRateMultiplier(withText(0, null), withText(4, null))).to.equal(1);
  });
});
