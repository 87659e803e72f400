import { expect } from 'chai';
import { NEUTRAL_PROSODY, rms, type PresetVoice, type Prosody, type SynthesisRequest } from '@svc/core';
import { EspeakSpeechSynthesizer } from '../src/index.js';
import { medianF0, rejectionOf, seconds } from './audio-measures.js';

const FRENCH = 'Bonjour à tous, nous sommes très heureux de vous accueillir aujourd’hui dans notre ville.';
const ENGLISH = 'The quick brown fox jumps over the lazy dog, and then it runs away into the forest.';

describe('EspeakSpeechSynthesizer (real espeak-ng WASM in a worker thread)', function () {
  this.timeout(60000);
  let espeak: EspeakSpeechSynthesizer;
  let voice: (name: string) => PresetVoice;

  const request = (overrides: Omit<Partial<SynthesisRequest>, 'prosody'> & { prosody?: Partial<Prosody> } = {}): SynthesisRequest => ({
    text: ENGLISH,
    voice: voice('espeak-en-us'),
    sampleRate: 24000,
    wordTimings: false,
    ...overrides,
    prosody: { ...NEUTRAL_PROSODY, ...overrides.prosody },
  });

  before(async () => {
    espeak = await EspeakSpeechSynthesizer.create();
    voice = (name) => {
      const found = espeak.voices().find((v) => v.name === name);
      if (!found) throw new Error(`no preset ${name}`);
      return found;
    };
  });

  after(async () => {
    await espeak?.close();
  });

  it('offers one preset per espeak language, about 100 languages', () => {
    const voices = espeak.voices();
    const names = voices.map((v) => v.name);
    expect(names).to.include.members(['espeak-fr', 'espeak-en-us', 'espeak-de', 'espeak-pt-br', 'espeak-zh', 'espeak-ja']);
    expect(new Set(names).size).to.equal(names.length);
    const primaries = new Set(voices.map((v) => v.language.split('-')[0]));
    expect(primaries.size).to.be.at.least(100);
    expect(voice('espeak-fr').engineVoice).to.equal('roa/fr');
    expect(voice('espeak-en-us').language).to.equal('en-us');
    for (const v of voices) expect(v.engine).to.equal('espeak');
  });

  it('speaks French with plausible length and real energy', async () => {
    const result = await espeak.synthesize(request({ text: FRENCH, voice: voice('espeak-fr') }));
    expect(result.sampleRate).to.equal(24000);
    expect(seconds(result.samples, 24000) / FRENCH.length).to.be.within(0.03, 0.2);
    expect(rms(result.samples)).to.be.greaterThan(0.01);
  });

  for (const name of ['espeak-de', 'espeak-ru', 'espeak-zh', 'espeak-ar', 'espeak-hi']) {
    it(`${name} produces non-silent audio`, async () => {
      const texts: Record<string, string> = {
        'espeak-de': 'Guten Tag, wie geht es Ihnen heute?',
        'espeak-ru': 'Привет, как у тебя дела сегодня?',
        'espeak-zh': '你好，今天天气很好。',
        'espeak-ar': 'مرحبا، كيف حالك اليوم؟',
        'espeak-hi': 'नमस्ते, आज आप कैसे हैं?',
      };
      const result = await espeak.synthesize(request({ text: texts[name]!, voice: voice(name) }));
      expect(seconds(result.samples, 24000)).to.be.greaterThan(0.5);
      expect(rms(result.samples)).to.be.greaterThan(0.01);
    });
  }

  it('rate 2 gives clearly shorter audio than rate 1', async () => {
    const normal = await espeak.synthesize(request());
    const fast = await espeak.synthesize(request({ prosody: { rate: 2 } }));
    expect(fast.samples.length / normal.samples.length).to.be.within(0.35, 0.65);
  });

  it('pitch raises the measured F0, pitch range flattens or widens without moving it much', async () => {
    const normal = await espeak.synthesize(request());
    const high = await espeak.synthesize(request({ prosody: { pitch: 1.3 } }));
    const f0 = medianF0(normal.samples, 24000);
    expect(medianF0(high.samples, 24000) / f0).to.be.within(1.15, 1.45);
  });

  it('volume is a linear gain', async () => {
    const normal = await espeak.synthesize(request());
    const quiet = await espeak.synthesize(request({ prosody: { volume: 0.5 } }));
    expect(rms(quiet.samples) / rms(normal.samples)).to.be.closeTo(0.5, 0.02);
  });

  it('reports real word timings from espeak events, mapped back to the written words', async () => {
    const result = await espeak.synthesize(request({ text: FRENCH, voice: voice('espeak-fr'), wordTimings: true }));
    const words = result.words.map((w) => w.word);
    expect(words.slice(0, 4)).to.deep.equal(['Bonjour', 'à', 'tous', 'nous']);
    expect(words).to.include('ville');
    let previous = -1;
    for (const w of result.words) {
      expect(w.start).to.be.greaterThan(previous);
      expect(w.end).to.be.at.least(w.start);
      previous = w.start;
    }
    expect(result.words.at(-1)!.end).to.be.at.most(seconds(result.samples, 24000) + 0.01);
  });

  it('times every written word where espeak joins words ("tout le monde", "was a", "in the", "to be", "23")', async () => {
    const cases: [string, string, string[]][] = [
      ['espeak-fr', 'Bonjour tout le monde.', ['Bonjour', 'tout', 'le', 'monde']],
      ['espeak-en-us', 'It was a well-known fact, I think.', ['It', 'was', 'a', 'well-known', 'fact', 'I', 'think']],
      ['espeak-en-us', 'I went in the house to be alone.', ['I', 'went', 'in', 'the', 'house', 'to', 'be', 'alone']],
      ['espeak-en-us', 'The U.S. had 23 ships. Then—no.', ['The', 'U.S', 'had', '23', 'ships', 'Then', 'no']],
      ['espeak-en-us', 'To be or not to be, that is the question.', ['To', 'be', 'or', 'not', 'to', 'be', 'that', 'is', 'the', 'question']],
    ];
    for (const [name, text, expected] of cases) {
      const result = await espeak.synthesize(request({ text, voice: voice(name), wordTimings: true }));
      expect(
        result.words.map((w) => w.word),
        text,
      ).to.deep.equal(expected);
      result.words.forEach((w, i) => {
        expect(w.end, `${text}: ${w.word}`).to.be.greaterThan(w.start);
        if (i > 0) expect(w.start, `${text}: ${w.word}`).to.be.at.least(result.words[i - 1]!.end);
      });
    }
  });

  it('reads `<`, `>` and `&` as text, not SSML (nothing after them is lost)', async () => {
    const result = await espeak.synthesize(
      request({ text: 'Rock & roll < jazz > blues, and the sentence goes on to the end.', wordTimings: true }),
    );
    const words = result.words.map((w) => w.word);
    expect(words).to.include.members(['Rock', 'roll', 'jazz', 'blues', 'end']);
  });

  it('serializes concurrent calls safely: 8 at once in mixed voices match the same calls one by one', async () => {
    const jobs = Array.from({ length: 8 }, (_, i) =>
      request({
        text: i % 2 ? FRENCH : ENGLISH,
        voice: voice(i % 2 ? 'espeak-fr' : 'espeak-en-us'),
        prosody: { rate: 1 + i * 0.1 },
        wordTimings: true,
      }),
    );
    const together = await Promise.all(jobs.map((j) => espeak.synthesize(j)));
    for (const [i, job] of jobs.entries()) {
      const alone = await espeak.synthesize(job);
      // espeak jitters lengths by a few ms from run to run; a mixed-up voice, text or rate would not be close.
      expect(together[i]!.samples.length / alone.samples.length).to.be.within(0.99, 1.01);
      expect(together[i]!.words.map((w) => w.word)).to.deep.equal(alone.words.map((w) => w.word));
    }
  });

  it('rejects at once when the signal is already aborted', async () => {
    const err = await rejectionOf(espeak.synthesize(request(), AbortSignal.abort()));
    expect(err.name).to.equal('AbortError');
  });

  it('rejects promptly when aborted mid-way and stays usable', async () => {
    const long = request({ text: `${ENGLISH} `.repeat(60) });
    // The baseline, measured in this run: the same text synthesized to the end.
    let started = performance.now();
    await espeak.synthesize(long);
    const wholeMs = performance.now() - started;
    const controller = new AbortController();
    const pending = espeak.synthesize(long, controller.signal);
    setTimeout(() => controller.abort(), 10);
    started = performance.now();
    const err = await rejectionOf(pending);
    expect(err.name).to.equal('AbortError');
    expect(performance.now() - started, `the whole text takes ${wholeMs.toFixed(0)} ms`).to.be.below(wholeMs / 4);
    const after = await espeak.synthesize(request());
    expect(after.samples.length).to.be.greaterThan(0);
  });

  it('rejects a voice it does not have', async () => {
    const bogus: PresetVoice = { ...voice('espeak-fr'), engineVoice: 'xx/none' };
    const err = await rejectionOf(espeak.synthesize(request({ voice: bogus })));
    expect(err.name).to.equal('InvalidParameterError');
  });
});
