import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEUTRAL_PROSODY, type PresetVoice } from '@svc/core';
import { EspeakPhonemizer } from '../../src/models/espeak-phonemizer.js';
import { scanVoiceModels } from '../../src/models/model-directory.js';
import { PIPER_TEST_MODEL } from '@svc/adapters-testing';
import { PiperSpeechSynthesizer, piperFeeds } from '../../src/piper/piper-speech-synthesizer.js';
import { parsePiperVoiceConfig, piperPhonemeIds } from '../../src/piper/piper-voice-config.js';
import { piperConfigJson, writePiperVoice } from '@svc/adapters-testing';

/** Dominant frequency from zero crossings (the test models output a pure tone). */
function toneHz(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return (crossings / 2) * (rate / samples.length);
}

describe('Piper voices (test-built ONNX model with the Piper signature)', function () {
  this.timeout(60000);
  let dir: string;
  let phonemizer: EspeakPhonemizer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-piper-'));
    phonemizer = await EspeakPhonemizer.create();
  });
  after(async () => {
    await phonemizer.release();
    await rm(dir, { recursive: true, force: true });
  });

  it('turns espeak-ng phonemes into ids with bos, interspersed pad and eos (Piper convention)', async () => {
    const config = parsePiperVoiceConfig(piperConfigJson());
    const words = await phonemizer.phonemize('Hello world', 'en-us');
    expect(words.map((w) => w.word)).to.deep.equal(['Hello', 'world']);
    expect(words[0]!.phonemes).to.deep.equal(['h', 'ə', 'l', 'ˈoʊ']);
    const { ids, wordSpans } = piperPhonemeIds(words, config);
    const id = (p: string) => config.phonemeIds.get(p)![0]!;
    const expected = [id('^'), id('_')];
    for (const p of 'həlˈoʊ') expected.push(id(p), id('_'));
    expected.push(id(' '), id('_'));
    for (const p of words[1]!.phonemes.join('')) expected.push(id(p), id('_'));
    expected.push(id('$'));
    expect(ids).to.deep.equal(expected);
    expect(wordSpans[0]).to.deep.equal({ word: 'Hello', start: 2, end: 14 });
  });

  it('passes input, input_lengths, scales (rate -> length_scale) and sid with the right shapes and dtypes', () => {
    const config = parsePiperVoiceConfig(piperConfigJson({ lengthScale: 1.2 }));
    const feeds = piperFeeds([1, 0, 5, 0, 2], config, 2, 3, true);
    expect(feeds.input!.type).to.equal('int64');
    expect(feeds.input!.dims).to.deep.equal([1, 5]);
    expect(Array.from(feeds.input!.data as BigInt64Array, Number)).to.deep.equal([1, 0, 5, 0, 2]);
    expect(Array.from(feeds.input_lengths!.data as BigInt64Array, Number)).to.deep.equal([5]);
    expect(feeds.scales!.type).to.equal('float32');
    expect(feeds.scales!.dims).to.deep.equal([3]);
    const [noise, length, noiseW] = Array.from(feeds.scales!.data as Float32Array);
    expect(noise).to.be.closeTo(0.667, 1e-6);
    expect(length).to.be.closeTo(0.6, 1e-6);
    expect(noiseW).to.be.closeTo(0.8, 1e-6);
    expect(Array.from(feeds.sid!.data as BigInt64Array, Number)).to.deep.equal([3]);
    expect(piperFeeds([1], config, 1, undefined, false)).to.not.have.property('sid');
  });

  it('synthesizes through the model: length follows ids and rate, pitch follows ids and speaker, output resampled', async () => {
    await writePiperVoice(dir, 'en_US-test-medium', { sampleRate: 22050 });
    await writePiperVoice(dir, 'en_US-duo-low', { sampleRate: 16000, speakers: ['alice', 'bob'] });
    const scan = await scanVoiceModels(dir);
    expect(scan.warnings).to.deep.equal([]);
    const synth = await PiperSpeechSynthesizer.create({ models: scan.piper, phonemizer });
    try {
      expect(
        synth
          .voices()
          .map((v) => v.name)
          .sort(),
      ).to.deep.equal(['piper-en_us-duo-low-alice', 'piper-en_us-duo-low-bob', 'piper-en_us-test-medium']);
      const voice = (name: string): PresetVoice => synth.voices().find((v) => v.name === name)!;
      const config = scan.piper.find((m) => m.manifest.name === 'en_US-test-medium')!.config;
      const { ids } = piperPhonemeIds(await phonemizer.phonemize('Hello world', 'en-us'), config);

      const normal = await synth.synthesize({
        text: 'Hello world',
        voice: voice('piper-en_us-test-medium'),
        prosody: { ...NEUTRAL_PROSODY },
        sampleRate: 22050,
        wordTimings: true,
      });
      expect(normal.samples.length).to.equal(ids.length * PIPER_TEST_MODEL.hop);
      const meanId = ids.reduce((a, b) => a + b, 0) / ids.length;
      expect(toneHz(normal.samples, 22050)).to.be.closeTo(PIPER_TEST_MODEL.baseHz + meanId * PIPER_TEST_MODEL.idHz, 8);
      // Piper peak-normalizes each sentence (the config's noise_scale reaching the model is checked in the feeds test)
      const peak = normal.samples.reduce((m, s) => Math.max(m, Math.abs(s)), 0);
      expect(peak).to.equal(32767);
      expect(normal.words.map((w) => w.word)).to.deep.equal(['Hello', 'world']);
      expect(normal.words[1]!.end).to.be.greaterThan(normal.words[0]!.end);

      const fast = await synth.synthesize({
        text: 'Hello world',
        voice: voice('piper-en_us-test-medium'),
        prosody: { ...NEUTRAL_PROSODY, rate: 2 },
        sampleRate: 22050,
        wordTimings: false,
      });
      expect(fast.samples.length).to.equal(Math.trunc((ids.length * PIPER_TEST_MODEL.hop) / 2));

      const resampled = await synth.synthesize({
        text: 'Hello world',
        voice: voice('piper-en_us-test-medium'),
        prosody: { ...NEUTRAL_PROSODY },
        sampleRate: 44100,
        wordTimings: false,
      });
      expect(resampled.sampleRate).to.equal(44100);
      expect(resampled.samples.length).to.be.closeTo(normal.samples.length * 2, 40);

      const alice = await synth.synthesize({
        text: 'Hello world',
        voice: voice('piper-en_us-duo-low-alice'),
        prosody: { ...NEUTRAL_PROSODY },
        sampleRate: 16000,
        wordTimings: false,
      });
      const bob = await synth.synthesize({
        text: 'Hello world',
        voice: voice('piper-en_us-duo-low-bob'),
        prosody: { ...NEUTRAL_PROSODY },
        sampleRate: 16000,
        wordTimings: false,
      });
      expect(toneHz(bob.samples, 16000) - toneHz(alice.samples, 16000)).to.be.closeTo(PIPER_TEST_MODEL.speakerHz, 8);
    } finally {
      await synth.close();
    }
  });

  it("peak-normalizes each sentence as Piper's normalize_audio does: a quiet voice comes out at full scale, unclipped at any rate; volume scales from there", async () => {
    const quietDir = join(dir, 'quiet');
    // the test model's amplitude is noise_scale / 2: 0.05 of full scale
    await writePiperVoice(quietDir, 'en_US-quiet-medium', { sampleRate: 22050, noiseScale: 0.1 });
    const synth = await PiperSpeechSynthesizer.create({ models: (await scanVoiceModels(quietDir)).piper, phonemizer });
    try {
      const voice = synth.voices()[0]!;
      const peak = (s: Int16Array) => s.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      const crest = (s: Int16Array) => peak(s) / Math.sqrt(s.reduce((a, v) => a + v * v, 0) / s.length);
      for (const [sampleRate, pitch] of [
        [22050, 1],
        [48000, 1],
        [16000, 1.3],
      ] as const) {
        const out = await synth.synthesize({
          text: 'Hello world.',
          voice,
          prosody: { ...NEUTRAL_PROSODY, pitch },
          sampleRate,
          wordTimings: false,
        });
        expect(peak(out.samples), `${sampleRate} Hz`).to.equal(32767);
        // a tone's peak is sqrt(2) times its RMS; clipping would flatten the crests and lower it
        expect(crest(out.samples), `${sampleRate} Hz`).to.be.closeTo(Math.SQRT2, 0.03);
      }
      const soft = await synth.synthesize({
        text: 'Hello world.',
        voice,
        prosody: { ...NEUTRAL_PROSODY, volume: 0.5 },
        sampleRate: 22050,
        wordTimings: false,
      });
      expect(peak(soft.samples)).to.be.closeTo(16384, 2);
    } finally {
      await synth.close();
    }
  });

  it('skips broken or incomplete models with one warning each and keeps the good ones', async () => {
    const broken = await mkdtemp(join(tmpdir(), 'svc-piper-broken-'));
    try {
      await writePiperVoice(broken, 'good');
      await writeFile(join(broken, 'lonely.onnx'), 'x');
      await writeFile(join(broken, 'orphan.onnx.json'), '{}');
      await writePiperVoice(broken, 'badjson');
      await writeFile(join(broken, 'badjson.onnx.json'), '{"audio":');
      await writePiperVoice(broken, 'nomap');
      await writeFile(join(broken, 'nomap.onnx.json'), JSON.stringify({ ...piperConfigJson(), phoneme_id_map: undefined }));
      await writePiperVoice(broken, 'corrupt');
      await writeFile(join(broken, 'corrupt.onnx'), 'not a protobuf');
      const scan = await scanVoiceModels(broken);
      expect(scan.warnings).to.have.length(4);
      expect(scan.warnings.join('\n'))
        .to.match(/lonely.*no lonely\.onnx\.json/)
        .and.match(/orphan/)
        .and.match(/badjson.*JSON/)
        .and.match(/nomap.*phoneme_id_map/);
      const skipped: string[] = [];
      const synth = await PiperSpeechSynthesizer.create({
        models: scan.piper,
        phonemizer,
        onSkipped: (name, why) => skipped.push(`${name}: ${why}`),
      });
      expect(skipped).to.have.length(1);
      expect(skipped[0]).to.match(/^corrupt: onnxruntime cannot load it/);
      expect(synth.voices().map((v) => v.name)).to.deep.equal(['piper-good']);
      expect(scan.piper.find((m) => m.manifest.name === 'good')!.manifest)
        .to.include({ kind: 'tts', engine: 'piper', sampleRate: 22050 })
        .and.have.property('checksum')
        .that.matches(/^[0-9a-f]{64}$/);
      await synth.close();
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
