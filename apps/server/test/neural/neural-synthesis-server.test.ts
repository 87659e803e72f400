import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KOKORO_TEST_MODEL, writeKokoroModel, writePiperVoice } from '@svc/adapters-testing';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { decodeWithFfmpeg, postJson } from '../helpers/http.js';
import { b64, registerJson, speechBytes } from '../voices/voice-helpers.js';

/** Dominant frequency from zero crossings (the test models speak a pure tone). */
function toneHz(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return (crossings / 2) * (rate / samples.length);
}

/** Longest run of exact zeros, in seconds (inserted pauses are digital silence). */
function longestSilence(samples: Int16Array, rate: number): number {
  let best = 0;
  let run = 0;
  for (const s of samples) {
    run = s === 0 ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best / rate;
}

const TEXT = 'Hello world, this sentence is long enough to measure the tone of the voice well.';

describe('neural synthesis in the real server: tags, blends, cloning on a neural base, metrics', function () {
  this.timeout(180_000);
  let t: TestServer;
  let modelsDir: string;

  before(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'svc-neural-synth-'));
    await writePiperVoice(modelsDir, 'en_US-test-medium', { sampleRate: 22050 });
    await writeKokoroModel(join(modelsDir, 'kokoro'), { af_low: () => 0, am_high: () => 0.5 }, { hop: 600 });
    t = await startTestServer({ env: { SVC_MODELS_DIR: modelsDir } });
  });
  after(async () => {
    await t?.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  const pcmOf = async (body: Record<string, unknown>) =>
    decodeWithFfmpeg(await speechBytes(t, t.apiKey, { response_format: 'wav', ...body }), 24000);

  it('inline prosody tags: pitch shifts the neural voice, rate changes its length, pauses insert silence', async () => {
    const voice = 'piper-en_us-test-medium';
    const plain = await pcmOf({ input: TEXT, voice });
    const high = await pcmOf({ input: `<|prosody:x-high|>${TEXT}`, voice });
    const slow = await pcmOf({ input: `<|prosody:slow|>${TEXT}`, voice });
    const paused = await pcmOf({ input: `Hello world. <|prosody:pause=800ms|> ${TEXT}`, voice });
    expect(toneHz(high, 24000) / toneHz(plain, 24000)).to.be.closeTo(1.25, 0.03);
    expect(high.length / plain.length).to.be.closeTo(1, 0.02);
    expect(slow.length / plain.length).to.be.closeTo(1 / 0.8, 0.03);
    expect(longestSilence(paused, 24000)).to.be.at.least(0.78);
    expect(longestSilence(plain, 24000)).to.be.lessThan(0.05);
  });

  it('emotion tags reach a neural voice as post-processing (sad: lower, slower, quieter)', async () => {
    const voice = 'kokoro-af_low';
    const plain = await pcmOf({ input: TEXT, voice });
    const sad = await pcmOf({ input: `<|emotion:sad|>${TEXT}`, voice });
    const peak = (s: Int16Array) => s.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    expect(toneHz(sad, 24000)).to.be.lessThan(toneHz(plain, 24000) * 0.97);
    expect(sad.length).to.be.greaterThan(plain.length * 1.05);
    expect(peak(sad)).to.be.lessThan(peak(plain) * 0.95);
  });

  it('word timestamps of a neural voice through the API', async () => {
    const res = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: 'Hello world. Second sentence.', voice: 'kokoro-af_low', timestamps: true },
      t.apiKey,
    );
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { words: { word: string; start: number; end: number }[]; duration: number };
    expect(body.words.map((w) => w.word.replace(/\W/g, ''))).to.deep.equal(['Hello', 'world', 'Second', 'sentence']);
    for (let i = 1; i < body.words.length; i++) expect(body.words[i]!.start).to.be.at.least(body.words[i - 1]!.end - 1e-6);
    expect(body.words.at(-1)!.end).to.be.at.most(body.duration + 1e-6);
  });

  it('word timestamps keep every written word where espeak joins them ("was a", "tout le monde"): Piper, Kokoro and the espeak voices', async () => {
    const cases: [string, string, string[]][] = [
      ['piper-en_us-test-medium', 'It was a well-known fact, I think.', ['It', 'was', 'a', 'well-known', 'fact', 'I', 'think']],
      ['kokoro-af_low', 'It was a well-known fact, I think.', ['It', 'was', 'a', 'well-known', 'fact', 'I', 'think']],
      ['espeak-en-us', 'It was a well-known fact, I think.', ['It', 'was', 'a', 'well-known', 'fact', 'I', 'think']],
      ['espeak-fr', 'Bonjour tout le monde.', ['Bonjour', 'tout', 'le', 'monde']],
    ];
    for (const [voice, input, expected] of cases) {
      const res = await postJson(`${t.baseUrl}/v1/audio/speech`, { input, voice, timestamps: true }, t.apiKey);
      expect(res.status, voice).to.equal(200);
      const body = (await res.json()) as { words: { word: string; start: number; end: number }[]; duration: number };
      expect(
        body.words.map((w) => w.word.replace(/[^\p{L}\p{N}-]/gu, '')),
        voice,
      ).to.deep.equal(expected);
      body.words.forEach((w, i) => {
        expect(w.end, `${voice} ${w.word}`).to.be.greaterThan(w.start);
        if (i > 0) expect(w.start, `${voice} ${w.word}`).to.be.at.least(body.words[i - 1]!.end - 1e-6);
      });
      expect(body.words.at(-1)!.end, voice).to.be.at.most(body.duration + 1e-6);
    }
  });

  it('Kokoro blends by name: the style is mixed; an unknown part is voice_not_found', async () => {
    const low = await pcmOf({ input: TEXT, voice: 'kokoro-af_low' });
    const res = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: TEXT, voice: 'kokoro-af_low*0.6+am_high*0.4', response_format: 'wav' },
      t.apiKey,
    );
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-voice')).to.equal('kokoro-af_low*0.6+am_high*0.4');
    const blend = await decodeWithFfmpeg(Buffer.from(await res.arrayBuffer()), 24000);
    expect(toneHz(blend, 24000) - toneHz(low, 24000)).to.be.closeTo(0.4 * 0.5 * KOKORO_TEST_MODEL.styleHz, 4);
    const unknown = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: TEXT, voice: 'kokoro-af_low+af_nobody' }, t.apiKey);
    expect(unknown.status).to.equal(404);
    expect(((await unknown.json()) as { error: { type: string } }).error.type).to.equal('voice_not_found');
  });

  it('a registered voice speaks on the neural base the analysis finds closest', async () => {
    for (const [reference, expected] of [
      ['kokoro-am_high', 'kokoro-am_high'],
      ['kokoro-af_low', 'kokoro-af_low'],
    ] as const) {
      // the reference is a (shifted) reading by one neural voice: the analysis must pick that voice
      const refWav = await speechBytes(t, t.apiKey, { input: `<|prosody:high|>${TEXT} ${TEXT}`, voice: reference, response_format: 'wav' });
      const registered = await registerJson(t, t.apiKey, { ref_audio: b64(refWav) });
      expect(registered.status, JSON.stringify(registered.body)).to.equal(200);
      const res = await postJson(
        `${t.baseUrl}/v1/audio/speech`,
        { input: TEXT, voice: registered.body.voice, response_format: 'wav' },
        t.apiKey,
      );
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-voice')).to.equal(expected);
      const pcm = await decodeWithFfmpeg(Buffer.from(await res.arrayBuffer()), 24000);
      expect(pcm.length).to.be.greaterThan(24000);
    }
  });

  it('/metrics reports every loaded neural model with its size', async () => {
    const text = await (await fetch(`${t.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${t.apiKey}` } })).text();
    const lines = text.split('\n').filter((l) => l.startsWith('svc_neural_model_bytes{'));
    expect(lines).to.have.length(2);
    expect(lines.join('\n'))
      .to.match(/engine="piper",model="en_US-test-medium"} \d{3,}/)
      .and.match(/engine="kokoro",model="kokoro"} \d{3,}/);
  });
});
