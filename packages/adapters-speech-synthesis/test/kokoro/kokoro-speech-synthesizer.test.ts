import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEUTRAL_PROSODY } from '@svc/core';
import { EspeakPhonemizer } from '../../src/models/espeak-phonemizer.js';
import { scanVoiceModels } from '../../src/models/model-directory.js';
import { writeKokoroModel } from '@svc/adapters-testing';
import { KOKORO_TEST_MODEL } from '@svc/adapters-testing';
import { KokoroSpeechSynthesizer, kokoroFeeds, kokoroInputIds } from '../../src/kokoro/kokoro-speech-synthesizer.js';

function toneHz(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return (crossings / 2) * (rate / samples.length);
}

describe('Kokoro voices (test-built ONNX model with the Kokoro signature, community export layout)', function () {
  this.timeout(60000);
  let dir: string;
  let phonemizer: EspeakPhonemizer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-kokoro-'));
    phonemizer = await EspeakPhonemizer.create();
  });
  after(async () => {
    await phonemizer.release();
    await rm(dir, { recursive: true, force: true });
  });

  it('input_ids with pad 0 at both ends, the style row chosen by token count, speed', () => {
    const vocab = new Map([
      [' ', 1],
      ['a', 5],
      ['b', 6],
    ]);
    const { ids } = kokoroInputIds(
      [
        { word: 'x', phonemes: ['a', 'b'], before: '', after: '' },
        { word: 'y?', phonemes: ['a'], before: '', after: '?' },
      ],
      vocab,
      'a',
    );
    expect(ids).to.deep.equal([0, 5, 6, 1, 5, 0]);
    const styles = new Float32Array(510 * 256);
    for (let r = 0; r < 510; r++) styles.fill(r, r * 256, (r + 1) * 256);
    const feeds = kokoroFeeds(ids, styles, 1.5);
    expect(feeds.input_ids!.type).to.equal('int64');
    expect(feeds.input_ids!.dims).to.deep.equal([1, 6]);
    expect(feeds.style!.type).to.equal('float32');
    expect(feeds.style!.dims).to.deep.equal([1, 256]);
    expect(Array.from(feeds.style!.data as Float32Array).every((v) => v === 4)).to.equal(true); // 4 tokens without pads
    expect(Array.from(feeds.speed!.data as Float32Array)).to.deep.equal([1.5]);
  });

  it('finds the model, lists kokoro-<voice> presets and speaks through it at 24 kHz', async () => {
    const modelDir = join(dir, 'kokoro-v1.0');
    await writeKokoroModel(modelDir, { af_test: (r) => r * 0.01, bm_test: () => 0.5 });
    const scan = await scanVoiceModels(dir);
    expect(scan.warnings).to.deep.equal([]);
    expect(scan.kokoro[0]!.manifest).to.include({ name: 'kokoro-v1.0', engine: 'kokoro', sampleRate: 24000 });
    expect(scan.kokoro[0]!.manifest.languages).to.deep.equal(['en-us', 'en-gb']);
    const synth = await KokoroSpeechSynthesizer.create({ models: scan.kokoro.map((k) => k.model), phonemizer });
    try {
      expect(synth.voices().map((v) => [v.name, v.language, v.gender])).to.deep.equal([
        ['kokoro-af_test', 'en-us', 'female'],
        ['kokoro-bm_test', 'en-gb', 'male'],
      ]);
      const { ids } = kokoroInputIds(await phonemizer.phonemize('Hello world', 'en-us'), scan.kokoro[0]!.model.vocab, 'a');
      const voice = synth.voices()[0]!;
      const result = await synth.synthesize({
        text: 'Hello world',
        voice,
        prosody: { ...NEUTRAL_PROSODY },
        sampleRate: 24000,
        wordTimings: true,
      });
      expect(result.samples.length).to.equal(ids.length * KOKORO_TEST_MODEL.hop);
      const meanId = ids.reduce((a, b) => a + b, 0) / ids.length;
      const styleValue = (ids.length - 2) * 0.01;
      expect(toneHz(result.samples, 24000)).to.be.closeTo(
        KOKORO_TEST_MODEL.baseHz + meanId * KOKORO_TEST_MODEL.idHz + styleValue * KOKORO_TEST_MODEL.styleHz,
        8,
      );
      expect(result.words.map((w) => w.word)).to.deep.equal(['Hello', 'world']);
      const fast = await synth.synthesize({
        text: 'Hello world',
        voice,
        prosody: { ...NEUTRAL_PROSODY, rate: 2 },
        sampleRate: 24000,
        wordTimings: false,
      });
      expect(fast.samples.length).to.equal((ids.length * KOKORO_TEST_MODEL.hop) / 2);
    } finally {
      await synth.close();
    }
  });

  it('an incomplete Kokoro directory is one warning', async () => {
    const other = await mkdtemp(join(tmpdir(), 'svc-kokoro-bad-'));
    try {
      await mkdir(join(other, 'nomodel', 'voices'), { recursive: true });
      await writeKokoroModel(join(other, 'badvoice'), { af_x: () => 0 });
      await writeFile(join(other, 'badvoice', 'voices', 'af_x.bin'), new Uint8Array(10));
      const scan = await scanVoiceModels(other);
      expect(scan.kokoro).to.deep.equal([]);
      expect(scan.warnings).to.have.length(2);
      expect(scan.warnings[0]).to.match(/model badvoice: skipped, voices\/af_x\.bin is not a float32/);
      expect(scan.warnings[1]).to.match(/model nomodel: skipped, no model file/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
