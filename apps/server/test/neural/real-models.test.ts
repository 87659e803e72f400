import { expect } from 'chai';
import { SPEECH_TOKENS, NEUTRAL_PROSODY, primaryLanguage } from '@svc/core';
import { TransformersSpeechRecognizer } from '@svc/adapters-speech-recognition';
import { scanModelDirectory, type ModelScan } from '../../src/runtime/model-directory.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { modelsCliWithEnv } from '../helpers/models-cli.js';
import { EVERYDAY_SENTENCES, requireRecognizer, speechRoundTrip } from '../helpers/pocketsphinx.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { wordErrorRate } from '../helpers/wer.js';
import type { Principal } from '@svc/core';

/** A directory of REAL published models (e.g. filled with `npm run models -- pull NAME`), in the model directory's layout. */
const REAL_MODELS = process.env.SVC_TEST_REAL_MODELS_DIR;

/**
 * The real-model tier: the end-to-end checks the test-built models cannot make (is the speech
 * intelligible, does the recognizer get the words right, do the word timings follow the audio), run
 * on whatever real models SVC_TEST_REAL_MODELS_DIR holds. Without it every test here is reported
 * as skipped (pending), never as passed.
 */
describe('real published models (SVC_TEST_REAL_MODELS_DIR)', function () {
  this.timeout(900_000);
  let scan: ModelScan;
  let t: TestServer | undefined;
  const principal = { keyId: 'k', tenantId: 't' } as unknown as Principal;

  before(async function () {
    if (!REAL_MODELS) {
      console.log('      SVC_TEST_REAL_MODELS_DIR is not set: the real-model tests are skipped');
      return this.skip();
    }
    requireRecognizer();
    scan = await scanModelDirectory(REAL_MODELS);
    const asr = scan.asr[0];
    t = await startTestServer({
      env: { SVC_MODELS_DIR: REAL_MODELS, ...(asr ? { SVC_ASR_ENGINE: `${asr.manifest.engine}:${asr.manifest.name}` } : {}) },
    });
  });
  after(async () => t?.close());

  it('every model in the directory loads (models verify)', async () => {
    const verify = await modelsCliWithEnv({ SVC_MODELS_DIR: REAL_MODELS!, SVC_DATA_DIR: t!.dataDir }, 'verify');
    console.log(`      ${verify.out.split('\n').at(-1)}`);
    expect(verify.code, verify.out).to.equal(0);
  });

  it('each English neural voice is intelligible: five everyday sentences spoken, heard back by pocketsphinx (WER under 15 %)', async function () {
    const catalog = t!.server.services.get(SPEECH_TOKENS.VoiceCatalog);
    const voices = catalog.list().filter((v) => (v.engine === 'piper' || v.engine === 'kokoro') && primaryLanguage(v.language) === 'en');
    if (voices.length === 0) return this.skip();
    for (const voice of voices) {
      const { wer, heard } = await speechRoundTrip(t!, { voice: voice.name });
      console.log(`      ${voice.name}: WER ${(wer * 100).toFixed(1)} % (${heard})`);
      expect(wer, voice.name).to.be.lessThan(0.15);
    }
  });

  it('word timings of each neural voice: one per word, in order, inside the audio, the last ending near its end', async function () {
    const catalog = t!.server.services.get(SPEECH_TOKENS.VoiceCatalog);
    const voices = catalog.list().filter((v) => (v.engine === 'piper' || v.engine === 'kokoro') && primaryLanguage(v.language) === 'en');
    if (voices.length === 0) return this.skip();
    const text = EVERYDAY_SENTENCES[1]!;
    for (const voice of voices) {
      const result = await catalog
        .engineFor(voice)
        .synthesize({ text, voice, prosody: { ...NEUTRAL_PROSODY }, sampleRate: 24000, wordTimings: true });
      const seconds = result.samples.length / 24000;
      expect(
        result.words.map((w) => w.word),
        voice.name,
      ).to.deep.equal(text.split(' '));
      result.words.forEach((w, i) => {
        expect(w.end, `${voice.name} ${w.word}`).to.be.greaterThan(w.start);
        if (i > 0) expect(w.start).to.be.at.least(result.words[i - 1]!.end - 1e-6);
      });
      expect(result.words.at(-1)!.end).to.be.within(seconds - 0.6, seconds + 1e-6);
    }
  });

  it('where espeak joins words, each English neural voice still times every written word; each Piper sentence peaks at full scale, as Piper makes it', async function () {
    const catalog = t!.server.services.get(SPEECH_TOKENS.VoiceCatalog);
    const voices = catalog.list().filter((v) => (v.engine === 'piper' || v.engine === 'kokoro') && primaryLanguage(v.language) === 'en');
    if (voices.length === 0) return this.skip();
    const text = 'It was a well-known fact, I think.';
    for (const voice of voices) {
      const result = await catalog
        .engineFor(voice)
        .synthesize({ text, voice, prosody: { ...NEUTRAL_PROSODY }, sampleRate: 24000, wordTimings: true });
      expect(
        result.words.map((w) => w.word),
        voice.name,
      ).to.deep.equal(text.split(' '));
      result.words.forEach((w, i) => {
        expect(w.end, `${voice.name} ${w.word}`).to.be.greaterThan(w.start);
        if (i > 0) expect(w.start).to.be.at.least(result.words[i - 1]!.end - 1e-6);
      });
      if (voice.engine === 'piper')
        expect(
          result.samples.reduce((m, v) => Math.max(m, Math.abs(v)), 0),
          voice.name,
        ).to.equal(32767);
    }
  });

  it('each Whisper / Moonshine model transcribes the five LibriVox sentences (WER under 15 %; pocketsphinx: 26.8 %), with its confidence figures', async function () {
    if (scan.asr.length === 0) return this.skip();
    const clips = librivoxSentences();
    for (const { manifest, model } of scan.asr) {
      const recognizer = await TransformersSpeechRecognizer.create({ dir: model.dir, name: manifest.name });
      try {
        const heard: string[] = [];
        for (const clip of clips) {
          const result = await recognizer.transcribeDetailed({ samples: clip.samples, sampleRate: 16000 }, { language: 'en', principal });
          heard.push(result.text);
          for (const s of result.segments) expect(s.avgLogprob, manifest.name).to.be.a('number');
        }
        const wer = wordErrorRate(clips.map((c) => c.words).join(' '), heard.join(' '));
        console.log(`      ${manifest.name}: WER ${(wer * 100).toFixed(1)} %`);
        expect(wer, manifest.name).to.be.lessThan(0.15);
      } finally {
        await recognizer.close();
      }
    }
  });
});
