import { expect } from 'chai';
import { SEMANTIC_PAUSE_MS, UNCLEAR_WAIT_MS, type EndOfTurnModel, type EndOfTurnVerdict } from '../../src/realtime/index.js';
import { EnergyVad, FakeStreamingRecognizer, flush, pcmBase64 } from '../fakes/index.js';
import { startTextSession } from './support/session-harness.js';

const RATE = 24000;

/** A steady voiced sound above the fake detector's level; `toHz` glides its last 300 ms (a fall or a level end). */
function phrase(ms: number, toHz = 120): string {
  const n = Math.round((ms / 1000) * RATE);
  const glideStart = n - Math.round(0.3 * RATE);
  const out = new Int16Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const f = i < glideStart ? 120 : 120 + ((toHz - 120) * (i - glideStart)) / (n - glideStart);
    phase += (2 * Math.PI * f) / RATE;
    out[i] = Math.round(14000 + 6000 * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase)));
  }
  return Buffer.from(out.buffer).toString('base64');
}

/** A model that answers what a test sets, now or when the test says, and records what it was given. */
class ScriptedTurnModel implements EndOfTurnModel {
  readonly threshold = 0.5;
  calls: { samples: Int16Array; sampleRate: number }[] = [];
  private pending: ((p: number) => void)[] = [];
  constructor(
    private readonly answer: number | 'later' | 'fail',
    readonly contextMs = 8000,
  ) {}
  finishedProbability(samples: Int16Array, sampleRate: number): Promise<number> {
    this.calls.push({ samples, sampleRate });
    if (this.answer === 'fail') return Promise.reject(new Error('model file is corrupt'));
    if (this.answer === 'later') return new Promise((resolve) => this.pending.push(resolve));
    return Promise.resolve(this.answer);
  }
  answerNow(probability: number): void {
    for (const resolve of this.pending.splice(0)) resolve(probability);
  }
}

async function session(model: ScriptedTurnModel, partial = 'what time is it') {
  const recognizer = new FakeStreamingRecognizer(partial);
  recognizer.partialText = partial;
  const verdicts: EndOfTurnVerdict[] = [];
  const h = await startTextSession(
    {
      audio: { voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer, endOfTurnModel: model },
      deps: { turnModelJudged: (v: EndOfTurnVerdict) => verdicts.push(v) },
    },
    { audio: { input: { turn_detection: { type: 'semantic_vad' } } } },
  );
  return Object.assign(h, { verdicts });
}

/** Speech, then the short pause semantic_vad judges. */
async function speakThenPause(h: Awaited<ReturnType<typeof session>>, speech: string) {
  await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, RATE, 0) });
  await h.send({ type: 'input_audio_buffer.append', audio: speech });
  await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(SEMANTIC_PAUSE_MS + 40, RATE, 0) });
  await flush();
}

describe('semantic_vad with an end-of-turn model', () => {
  it('ends a finished sentence said with a level voice at the pause when the model says it is finished', async () => {
    const model = new ScriptedTurnModel(0.9);
    const h = await session(model);
    await speakThenPause(h, phrase(1200));
    expect(h.out.types()).to.include('input_audio_buffer.committed');
    expect(model.calls).to.have.length(1);
    expect(h.verdicts).to.deep.equal(['ended']);
    // The turn's audio up to the pause: the voice, then the pause's silence at its end.
    const { samples, sampleRate } = model.calls[0]!;
    expect(sampleRate).to.equal(RATE);
    const ms = (samples.length / sampleRate) * 1000;
    expect(ms).to.be.within(1200 + SEMANTIC_PAUSE_MS - 40, 1500 + SEMANTIC_PAUSE_MS + 40);
    expect(Math.max(...samples.subarray(0, sampleRate))).to.be.above(10000);
    expect(Math.max(...samples.subarray(samples.length - Math.round(0.15 * sampleRate)).map(Math.abs))).to.equal(0);
  });

  it('keeps the rule’s wait when the model says the user goes on, and the turn ends when the wait is over', async () => {
    const model = new ScriptedTurnModel(0.2);
    const h = await session(model);
    await speakThenPause(h, phrase(1200));
    expect(model.calls).to.have.length(1);
    expect(h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    expect(h.verdicts).to.deep.equal(['waited']);
    h.clock.advance(500 + UNCLEAR_WAIT_MS);
    await flush();
    expect(h.out.types()).to.include('input_audio_buffer.committed');
  });

  it('is not asked after unfinished words, nor when the rule ends the turn at once', async () => {
    const unfinished = new ScriptedTurnModel(0.99);
    const h = await session(unfinished, 'i would like the');
    await speakThenPause(h, phrase(1200));
    expect(unfinished.calls).to.have.length(0);
    expect(h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);

    const falling = new ScriptedTurnModel(0.01);
    const f = await session(falling);
    await speakThenPause(f, phrase(1200, 80));
    expect(f.out.types()).to.include('input_audio_buffer.committed');
    expect(falling.calls).to.have.length(0);
  });

  it('a verdict that comes after the user spoke again is not used: the turn goes on', async () => {
    const model = new ScriptedTurnModel('later');
    const h = await session(model);
    await speakThenPause(h, phrase(1200));
    expect(model.calls).to.have.length(1);
    await h.send({ type: 'input_audio_buffer.append', audio: phrase(600) });
    await flush();
    model.answerNow(0.95);
    await flush();
    expect(h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    expect(h.verdicts).to.deep.equal(['late']);
  });

  it('a model that fails leaves the rule to decide', async () => {
    const model = new ScriptedTurnModel('fail');
    const h = await session(model);
    await speakThenPause(h, phrase(1200));
    expect(model.calls).to.have.length(1);
    expect(h.verdicts).to.deep.equal(['failed']);
    expect(h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    h.clock.advance(500 + UNCLEAR_WAIT_MS);
    await flush();
    expect(h.out.types()).to.include('input_audio_buffer.committed');
  });

  it('hears as far back as the model listens, not only the few seconds kept for a turn’s onset', async () => {
    const model = new ScriptedTurnModel(0.9, 4000);
    const h = await session(model);
    // 6 s of speech in 100 ms appends, as clients send it
    const speech = Buffer.from(phrase(6000), 'base64');
    const piece = (RATE / 10) * 2;
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, RATE, 0) });
    for (let at = 0; at < speech.length; at += piece)
      await h.send({ type: 'input_audio_buffer.append', audio: speech.subarray(at, at + piece).toString('base64') });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(SEMANTIC_PAUSE_MS + 40, RATE, 0) });
    await flush();
    const { samples, sampleRate } = model.calls[0]!;
    expect((samples.length / sampleRate) * 1000).to.be.within(3990, 4010);
  });
});
