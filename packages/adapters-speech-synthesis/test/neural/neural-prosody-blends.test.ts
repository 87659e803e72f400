import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEUTRAL_PROSODY, type PresetVoice, type Prosody } from '@svc/core';
import { EspeakPhonemizer } from '../../src/models/espeak-phonemizer.js';
import { scanVoiceModels } from '../../src/models/model-directory.js';
import { KokoroSpeechSynthesizer, kokoroInputIds } from '../../src/kokoro/kokoro-speech-synthesizer.js';
import { parseKokoroBlend } from '../../src/kokoro/kokoro-blend.js';
import { PiperSpeechSynthesizer } from '../../src/piper/piper-speech-synthesizer.js';
import { KOKORO_TEST_MODEL } from '@svc/adapters-testing';
import { writeKokoroModel, writePiperVoice } from '@svc/adapters-testing';

/** Dominant frequency from zero crossings (the test models output a pure tone). */
function toneHz(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return (crossings / 2) * (rate / samples.length);
}
const peak = (s: Int16Array) => s.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

describe('neural voices: prosody, word timings and Kokoro blends', function () {
  this.timeout(60000);
  let dir: string;
  let phonemizer: EspeakPhonemizer;
  let piper: PiperSpeechSynthesizer;
  let kokoro: KokoroSpeechSynthesizer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-neural-prosody-'));
    phonemizer = await EspeakPhonemizer.create();
    await writePiperVoice(dir, 'en_US-test-medium', { sampleRate: 22050 });
    await writeKokoroModel(join(dir, 'kokoro'), { af_low: () => 0.1, af_high: () => 0.3, bm_mid: () => 0.2 }, { durations: true });
    await writeKokoroModel(join(dir, 'kokoro-other'), { am_other: () => 0.5 });
    const scan = await scanVoiceModels(dir);
    piper = await PiperSpeechSynthesizer.create({ models: scan.piper, phonemizer });
    kokoro = await KokoroSpeechSynthesizer.create({ models: scan.kokoro.map((k) => k.model), phonemizer });
  });
  after(async () => {
    await Promise.all([piper.close(), kokoro.close(), phonemizer.release()]);
    await rm(dir, { recursive: true, force: true });
  });

  const say = (
    engine: PiperSpeechSynthesizer | KokoroSpeechSynthesizer,
    voice: PresetVoice,
    prosody: Partial<Prosody> = {},
    wordTimings = false,
    text = 'Hello world',
  ) => engine.synthesize({ text, voice, prosody: { ...NEUTRAL_PROSODY, ...prosody }, sampleRate: 24000, wordTimings });

  it('pitch shifts the voice (rendered slower, played faster) and keeps the duration; volume is a gain', async () => {
    for (const [engine, voice] of [
      [piper, piper.voices()[0]!],
      [kokoro, kokoro.resolveVoice('kokoro-af_low')!],
    ] as const) {
      // long enough for a precise zero-crossing frequency
      const long = (prosody: Partial<Prosody>) =>
        say(engine, voice, prosody, false, 'Hello world, this sentence is long enough to measure the tone of the voice well.');
      const neutral = await long({});
      const higher = await long({ pitch: 1.25 });
      const lower = await long({ pitch: 0.8 });
      expect(toneHz(higher.samples, 24000) / toneHz(neutral.samples, 24000)).to.be.closeTo(1.25, 0.02);
      expect(toneHz(lower.samples, 24000) / toneHz(neutral.samples, 24000)).to.be.closeTo(0.8, 0.02);
      expect(higher.samples.length / neutral.samples.length).to.be.closeTo(1, 0.01);
      expect(lower.samples.length / neutral.samples.length).to.be.closeTo(1, 0.01);
      const soft = await long({ volume: 0.5 });
      expect(peak(soft.samples) / peak(neutral.samples)).to.be.closeTo(0.5, 0.02);
      // rate and pitch together: duration follows the rate only
      const fastHigh = await long({ rate: 2, pitch: 1.25 });
      expect(fastHigh.samples.length / neutral.samples.length).to.be.closeTo(0.5, 0.01);
    }
  });

  it('word timings come from the durations the model outputs when it has them, else from token shares aligned to the audio', async () => {
    const voice = kokoro.resolveVoice('kokoro-af_low')!;
    const result = await say(kokoro, voice, {}, true);
    const model = (await scanVoiceModels(dir)).kokoro.find((k) => k.manifest.name === 'kokoro')!.model;
    const { ids, wordSpans } = kokoroInputIds(await phonemizer.phonemize('Hello world', 'en-us'), model.vocab, 'a');
    // test model: token i lasts ids[i] + 1 frames
    const starts = [0];
    for (const id of ids) starts.push(starts.at(-1)! + id + 1);
    const seconds = result.samples.length / 24000;
    const at = (i: number) => (starts[i]! / starts.at(-1)!) * seconds;
    expect(result.words.map((w) => w.word)).to.deep.equal(['Hello', 'world']);
    result.words.forEach((w, i) => {
      expect(w.start).to.be.closeTo(at(wordSpans[i]!.start), 1e-6);
      expect(w.end).to.be.closeTo(at(wordSpans[i]!.end), 1e-6);
    });
    // the proportional estimate would differ (ids are not all equal): the durations were used
    const proportional = (wordSpans[1]!.start / ids.length) * seconds;
    expect(Math.abs(result.words[1]!.start - proportional)).to.be.greaterThan(0.001);
    // Piper's export gives no durations: token share aligned to the audio, words in order and inside the audio
    const p = await say(piper, piper.voices()[0]!, {}, true);
    expect(p.words.map((w) => w.word)).to.deep.equal(['Hello', 'world']);
    expect(p.words[0]!.start).to.be.at.least(0);
    expect(p.words[1]!.start).to.be.at.least(p.words[0]!.end);
    expect(p.words[1]!.end).to.be.at.most(p.samples.length / 24000 + 1e-9);
  });

  it('parses blend names: equal parts or weights normalized to 1; malformed names are not blends', () => {
    expect(parseKokoroBlend('af_bella+af_sky')).to.deep.equal([
      { voice: 'af_bella', weight: 0.5 },
      { voice: 'af_sky', weight: 0.5 },
    ]);
    expect(parseKokoroBlend('af_bella*0.7+af_sky*0.3')!.map((p) => p.weight)).to.deep.equal([0.7, 0.3]);
    expect(parseKokoroBlend('af_bella*3+af_sky')!.map((p) => p.weight)).to.deep.equal([0.75, 0.25]);
    for (const bad of [
      'af_bella',
      'af_bella+',
      '+af_sky',
      'af_bella*0+af_sky',
      'af_bella*-1+af_sky',
      'af_bella*x+af_sky',
      'af_bella+af_bella',
      'a+b+c+d+e+f+g+h+i',
    ]) {
      expect(parseKokoroBlend(bad), bad).to.equal(null);
    }
  });

  it('a blend speaks with the weighted mean of the style rows; unknown or cross-model parts are not voices', async () => {
    const low = await say(kokoro, kokoro.resolveVoice('kokoro-af_low')!);
    const blend = kokoro.resolveVoice('kokoro-af_low*0.7+af_high*0.3')!;
    expect(blend).to.include({ name: 'kokoro-af_low*0.7+af_high*0.3', engine: 'kokoro', language: 'en-us', gender: 'female' });
    const blended = await say(kokoro, blend);
    // style 0.7*0.1 + 0.3*0.3 = 0.16: 0.06 above af_low, times the model's style Hz
    expect(toneHz(blended.samples, 24000) - toneHz(low.samples, 24000)).to.be.closeTo(0.06 * KOKORO_TEST_MODEL.styleHz, 3);
    const equal = await say(kokoro, kokoro.resolveVoice('kokoro-af_low+af_high')!);
    expect(toneHz(equal.samples, 24000) - toneHz(low.samples, 24000)).to.be.closeTo(0.1 * KOKORO_TEST_MODEL.styleHz, 3);
    expect(kokoro.resolveVoice('kokoro-af_low+bm_mid')!.gender).to.equal('neutral');
    expect(kokoro.resolveVoice('kokoro-af_low+af_nobody')).to.equal(undefined);
    expect(kokoro.resolveVoice('kokoro-af_low+am_other')).to.equal(undefined); // another model's voice
    expect(kokoro.resolveVoice('kokoro-af_low')).to.include({ name: 'kokoro-af_low' });
    expect(kokoro.voices().map((v) => v.name)).to.not.include('kokoro-af_low+af_high'); // blends are not listed
  });
});
