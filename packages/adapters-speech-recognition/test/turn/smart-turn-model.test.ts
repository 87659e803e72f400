import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resampleInt16 } from '@svc/adapters-runtime';
import { concat, librivoxClips, silenceMs, smartTurnTestModel, speechEdgesMs, LIBRIVOX_RATE } from '@svc/adapters-testing';
import { SmartTurnModel, smartTurnWindow } from '../../src/turn/smart-turn-model.js';
import { WhisperLogMel } from '../../src/asr/features/whisper-log-mel.js';

const never = new AbortController().signal;

describe('Smart Turn v3 end-of-turn model (onnxruntime, a model of its signature)', function () {
  this.timeout(30000);
  let dir: string;
  let model: SmartTurnModel;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-smart-turn-'));
    await writeFile(join(dir, 'smart-turn.onnx'), smartTurnTestModel());
    model = await SmartTurnModel.load(join(dir, 'smart-turn.onnx'), { threshold: 0.6 });
  });
  after(async () => {
    await model?.close();
    await rm(dir, { recursive: true, force: true });
  });

  // A recorded sentence cut at the end of its speech, with the short pause after it.
  const clip = librivoxClips()[0]!;
  const { endMs } = speechEdgesMs(clip.samples);
  const untilTheEnd = clip.samples.subarray(0, Math.round(((endMs + 200) / 1000) * LIBRIVOX_RATE));

  it('the 8 s window: the audio’s end at the window’s end (zeros in front), zero mean and unit variance', () => {
    const short = new Float32Array(16000).fill(0.5);
    short[0] = -0.5;
    const window = smartTurnWindow(short);
    expect(window).to.have.length(128000);
    const mean = window.reduce((a, v) => a + v, 0) / window.length;
    const variance = window.reduce((a, v) => a + (v - mean) ** 2, 0) / window.length;
    expect(mean).to.be.closeTo(0, 1e-4);
    expect(variance).to.be.closeTo(1, 1e-3);
    // front padding: every sample before the audio has one value, the audio's own keep their order
    expect(window[0]).to.equal(window[111999]);
    expect(window[112000]).to.be.below(window[0]!);
    expect(window[127999]).to.be.above(window[0]!);
    // longer audio: its last 8 s
    const long = new Float32Array(200000);
    long[200000 - 128000] = 1;
    expect(smartTurnWindow(long)[0]).to.be.above(smartTurnWindow(long)[1]!);
  });

  it('an 8 s log-mel window equals the first 800 frames of the 30 s one (Whisper’s features, tested against a reference there)', () => {
    const audio = Float32Array.from(untilTheEnd.subarray(0, 40000), (v) => v / 32768);
    const eight = new WhisperLogMel(80, 8).compute(audio);
    const thirty = new WhisperLogMel(80).compute(audio);
    expect(eight).to.have.length(80 * 800);
    for (const bin of [0, 17, 79])
      for (const frame of [0, 100, 249, 799]) expect(eight[bin * 800 + frame]).to.be.closeTo(thirty[bin * 3000 + frame]!, 1e-5);
  });

  it('judges the turn from its end: speech just before the pause scores high, a long silence after it low', async () => {
    const atTheEnd = await model.finishedProbability(untilTheEnd, LIBRIVOX_RATE, never);
    const longAfter = await model.finishedProbability(concat(untilTheEnd, silenceMs(3000)), LIBRIVOX_RATE, never);
    expect(atTheEnd).to.be.above(0.9);
    expect(longAfter).to.be.below(0.1);
    expect(model.threshold).to.equal(0.6);
  });

  it('takes other rates (a 24 kHz session, an 8 kHz call) as the same audio', async () => {
    const at16 = await model.finishedProbability(untilTheEnd, LIBRIVOX_RATE, never);
    for (const rate of [24000, 8000]) {
      const other = await model.finishedProbability(resampleInt16(untilTheEnd, LIBRIVOX_RATE, rate), rate, never);
      expect(other, `${rate} Hz`).to.be.closeTo(at16, 0.05);
    }
  });

  it('refuses a model of another signature when it loads, and a judgement asked after the turn was dropped', async () => {
    const { piperTestModel } = await import('@svc/adapters-testing');
    await writeFile(join(dir, 'piper.onnx'), piperTestModel({ sampleRate: 22050 }));
    let message = '';
    await SmartTurnModel.load(join(dir, 'piper.onnx')).catch((err: Error) => (message = err.message));
    expect(message).to.match(/is not a Smart Turn v3 model: it takes input, input_lengths, scales/);
    const dropped = new AbortController();
    dropped.abort();
    const err = await model.finishedProbability(untilTheEnd, LIBRIVOX_RATE, dropped.signal).catch((e: Error) => e);
    expect((err as Error).name).to.equal('AbortError');
  });
});
