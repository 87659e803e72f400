// @test-tier slow: synthesizes long texts with the real engine
import { expect } from 'chai';
import { NEUTRAL_PROSODY, rms, type PresetVoice, type Prosody, type SynthesisRequest } from '@svc/core';
import { FliteSpeechSynthesizer } from '../src/index.js';
import { medianF0, rejectionOf, seconds } from './audio-measures.js';

const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs away into the forest.';

describe('FliteSpeechSynthesizer (real flite.wasm in worker threads)', function () {
  this.timeout(60000);
  let flite: FliteSpeechSynthesizer;
  let voice: (name: string) => PresetVoice;

  const request = (overrides: Omit<Partial<SynthesisRequest>, 'prosody'> & { prosody?: Partial<Prosody> } = {}): SynthesisRequest => ({
    text: TEXT,
    voice: voice('slt'),
    sampleRate: 24000,
    wordTimings: false,
    ...overrides,
    prosody: { ...NEUTRAL_PROSODY, ...overrides.prosody },
  });

  before(async () => {
    flite = await FliteSpeechSynthesizer.create({ poolSize: 2 });
    voice = (name) => {
      const found = flite.voices().find((v) => v.name === name);
      if (!found) throw new Error(`no preset ${name}`);
      return found;
    };
  });

  after(async () => {
    await flite?.close();
  });

  it('offers the compiled-in English voices, synchronously after create()', () => {
    const names = flite.voices().map((v) => v.name);
    expect(names).to.include.members(['slt', 'rms', 'awb', 'kal', 'kal16']);
    for (const v of flite.voices()) {
      expect(v.engine).to.equal('flite');
      expect(v.language).to.match(/^en-/);
    }
    expect(voice('slt').gender).to.equal('female');
  });

  for (const name of ['slt', 'rms', 'awb', 'kal', 'kal16']) {
    it(`voice ${name}: audio of plausible length and real energy at the requested rate`, async () => {
      const result = await flite.synthesize(request({ voice: voice(name) }));
      expect(result.sampleRate).to.equal(24000);
      const perChar = seconds(result.samples, 24000) / TEXT.length;
      expect(perChar).to.be.within(0.03, 0.2);
      expect(rms(result.samples)).to.be.greaterThan(0.01);
    });
  }

  it('resamples to any requested rate (same duration at 16 kHz and 48 kHz)', async () => {
    const a = await flite.synthesize(request({ sampleRate: 16000 }));
    const b = await flite.synthesize(request({ sampleRate: 48000 }));
    expect(a.sampleRate).to.equal(16000);
    expect(b.sampleRate).to.equal(48000);
    expect(seconds(a.samples, 16000)).to.be.closeTo(seconds(b.samples, 48000), 0.01);
  });

  it('rate 2 gives clearly shorter audio than rate 1, rate 0.5 longer', async () => {
    const normal = await flite.synthesize(request());
    const fast = await flite.synthesize(request({ prosody: { rate: 2 } }));
    const slow = await flite.synthesize(request({ prosody: { rate: 0.5 } }));
    const base = normal.samples.length;
    expect(fast.samples.length / base).to.be.within(0.4, 0.65);
    expect(slow.samples.length / base).to.be.within(1.6, 2.4);
  });

  it('pitch raises the measured F0 (int_f0_target_mean on slt)', async () => {
    const normal = await flite.synthesize(request());
    const high = await flite.synthesize(request({ prosody: { pitch: 1.3 } }));
    const low = await flite.synthesize(request({ prosody: { pitch: 0.8 } }));
    const f0 = medianF0(normal.samples, 24000);
    expect(medianF0(high.samples, 24000) / f0).to.be.within(1.15, 1.45);
    expect(medianF0(low.samples, 24000) / f0).to.be.within(0.7, 0.9);
  });

  it('pitch also works on rms, whose F0 model ignores the f0 features (shift by resampling, same duration)', async () => {
    const normal = await flite.synthesize(request({ voice: voice('rms') }));
    const high = await flite.synthesize(request({ voice: voice('rms'), prosody: { pitch: 1.25 } }));
    expect(medianF0(high.samples, 24000) / medianF0(normal.samples, 24000)).to.be.within(1.12, 1.4);
    expect(high.samples.length / normal.samples.length).to.be.within(0.9, 1.1);
  });

  it('volume is a linear gain on the samples', async () => {
    const normal = await flite.synthesize(request());
    const quiet = await flite.synthesize(request({ prosody: { volume: 0.5 } }));
    expect(rms(quiet.samples) / rms(normal.samples)).to.be.closeTo(0.5, 0.02);
  });

  it('estimates word timings: one per written word, in order, inside the audio', async () => {
    const result = await flite.synthesize(request({ wordTimings: true }));
    const words = TEXT.split(/\s+/).map((w) => w.replace(/[.,]/g, ''));
    expect(result.words.map((w) => w.word)).to.deep.equal(words);
    const duration = seconds(result.samples, 24000);
    let previousEnd = 0;
    for (const w of result.words) {
      expect(w.start).to.be.at.least(previousEnd - 1e-9);
      expect(w.end).to.be.greaterThan(w.start);
      expect(w.end).to.be.at.most(duration + 0.01);
      previousEnd = w.end;
    }
    // flite pauses at the comma: "dog" ends before "and" starts.
    const dog = result.words.find((w) => w.word === 'dog')!;
    const and = result.words.find((w) => w.word === 'and')!;
    expect(and.start - dog.end).to.be.greaterThan(0.05);
    expect(result.words[0]!.start).to.be.greaterThan(0);
  });

  it('renders long text in pieces (bounded WASM memory, parallel workers) and times words across them', async () => {
    const long = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} of a rather long text, spoken slowly.`).join(' ');
    const result = await flite.synthesize(request({ text: long, prosody: { rate: 0.5 }, wordTimings: true }));
    expect(long.length).to.be.greaterThan(600);
    expect(seconds(result.samples, 24000) / long.length).to.be.within(0.06, 0.4);
    expect(result.words).to.have.length(long.split(/\s+/).length);
    for (let i = 1; i < result.words.length; i++) expect(result.words[i]!.start).to.be.at.least(result.words[i - 1]!.end - 1e-9);
    expect(result.words.at(-1)!.end).to.be.at.most(seconds(result.samples, 24000) + 0.01);
  });

  it('returns no words when word timings are not asked for', async () => {
    const result = await flite.synthesize(request());
    expect(result.words).to.deep.equal([]);
  });

  it('returns empty audio for text with nothing to say', async () => {
    const result = await flite.synthesize(request({ text: ' ... ' }));
    expect(result.samples.length).to.equal(0);
  });

  it('runs 8 concurrent calls on a pool of 2, all complete and correct', async () => {
    const texts = Array.from({ length: 8 }, (_, i) => `Concurrent request number ${i + 1} is being spoken now.`);
    const results = await Promise.all(texts.map((text) => flite.synthesize(request({ text }))));
    for (const [i, r] of results.entries()) {
      expect(seconds(r.samples, 24000) / texts[i]!.length).to.be.within(0.03, 0.2);
      expect(rms(r.samples)).to.be.greaterThan(0.01);
    }
  });

  it('reuses its instance across calls (memory restored, not re-instantiated) and speaks byte for byte as a fresh one', async () => {
    // One thread, so every call after the first runs where the previous one ran.
    const single = await FliteSpeechSynthesizer.create({ poolSize: 1 });
    try {
      const first = await single.synthesize(request({ wordTimings: true }));
      // Other voices, a long text (the memory grows) and prosody in between.
      await single.synthesize(request({ voice: voice('rms'), text: `${TEXT} `.repeat(3) }));
      await single.synthesize(request({ voice: voice('kal16'), prosody: { rate: 1.4, pitch: 1.2 } }));
      const again = await single.synthesize(request({ wordTimings: true }));
      expect(single.stats.runs).to.equal(single.stats.reusedInstances + 1);
      expect(Buffer.from(again.samples.buffer).equals(Buffer.from(first.samples.buffer))).to.equal(true);
      expect(again.words).to.deep.equal(first.words);
      // ...and as a thread that never ran anything else.
      const fresh = await FliteSpeechSynthesizer.create({ poolSize: 1 });
      try {
        const alone = await fresh.synthesize(request({ voice: voice('rms'), text: `${TEXT} `.repeat(3) }));
        const reused = await single.synthesize(request({ voice: voice('rms'), text: `${TEXT} `.repeat(3) }));
        expect(fresh.stats.reusedInstances).to.equal(0);
        expect(Buffer.from(reused.samples.buffer).equals(Buffer.from(alone.samples.buffer))).to.equal(true);
      } finally {
        await fresh.close();
      }
    } finally {
      await single.close();
    }
  });

  it('rejects at once when the signal is already aborted', async () => {
    const err = await rejectionOf(flite.synthesize(request(), AbortSignal.abort()));
    expect(err.name).to.equal('AbortError');
  });

  it('rejects promptly when aborted mid-way (the busy worker finishes, its result is discarded)', async () => {
    const long = `${TEXT} `.repeat(20);
    // The baseline, measured in this run: the same text synthesized to the end.
    let started = performance.now();
    await flite.synthesize(request({ text: long }));
    const wholeMs = performance.now() - started;
    const controller = new AbortController();
    const pending = flite.synthesize(request({ text: long }), controller.signal);
    setTimeout(() => controller.abort(), 20);
    started = performance.now();
    const err = await rejectionOf(pending);
    expect(err.name).to.equal('AbortError');
    expect(performance.now() - started, `the whole text takes ${wholeMs.toFixed(0)} ms`).to.be.below(wholeMs / 4);
    // The pool keeps serving afterwards.
    const after = await flite.synthesize(request());
    expect(after.samples.length).to.be.greaterThan(0);
  });

  it('rejects an unknown voice', async () => {
    const bogus: PresetVoice = { ...voice('slt'), engineVoice: 'nope' };
    const err = await rejectionOf(flite.synthesize(request({ voice: bogus })));
    expect(err.name).to.equal('InvalidParameterError');
  });

  it('rejects calls after close()', async () => {
    const other = await FliteSpeechSynthesizer.create({ poolSize: 1 });
    await other.close();
    const err = await rejectionOf(other.synthesize(request()));
    expect(err.name).to.equal('EngineError');
  });
});
