// @test-tier slow: synthesizes a minute of neural speech
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEUTRAL_PROSODY, type PresetVoice } from '@svc/core';
import { EspeakPhonemizer } from '../../src/models/espeak-phonemizer.js';
import { scanVoiceModels } from '../../src/models/model-directory.js';
import { PiperSpeechSynthesizer } from '../../src/piper/piper-speech-synthesizer.js';
import { writePiperVoice } from '@svc/adapters-testing';
import { resampleInt16 } from '@svc/adapters-runtime';
import { loopBusy } from '@svc/adapters-testing';

const LONG_TEXT = 'This sentence is long enough to keep a neural voice busy for a while, and then some more words follow it.';

const osThreads = (): number => readdirSync('/proc/self/task').length;

describe('neural engines run their models in worker threads', function () {
  this.timeout(120000);
  let dir: string;
  let phonemizer: EspeakPhonemizer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-neural-threads-'));
    phonemizer = await EspeakPhonemizer.create();
    // hop 6000 samples per id: ~150 ids -> ~40 s of audio per sentence, resampled: a long synthesis
    await writePiperVoice(dir, 'en_US-long-medium', { sampleRate: 22050, hop: 6000 });
  });
  after(async () => {
    await phonemizer.release();
    await rm(dir, { recursive: true, force: true });
  });

  it('a long synthesis keeps the main event loop free (its busy time stays small; resampling on it would not)', async () => {
    const scan = await scanVoiceModels(dir);
    const synth = await PiperSpeechSynthesizer.create({ models: scan.piper, phonemizer });
    try {
      const voice = synth.voices()[0]!;
      const neural = await loopBusy(() =>
        synth.synthesize({ text: LONG_TEXT, voice, prosody: { ...NEUTRAL_PROSODY, rate: 0.5 }, sampleRate: 48000, wordTimings: true }),
      );
      const seconds = neural.result.samples.length / 48000;
      expect(seconds).to.be.greaterThan(60);
      // Control: only the resampling of that output, done on the main thread, holds the loop far longer.
      const native = new Int16Array(Math.round(seconds * 22050));
      const control = await loopBusy(async () => resampleInt16(native, 22050, 48000));
      const report = `main loop busy ${neural.busyMs.toFixed(0)} ms (max timer lag ${neural.lagMs.toFixed(0)} ms) during ${neural.workMs.toFixed(0)} ms of synthesis; resampling on the main thread: ${control.busyMs.toFixed(0)} ms`;
      expect(control.busyMs, report).to.be.greaterThan(150);
      // Synthesis on the main thread would hold it at least as long as the control (it includes that
      // resampling); a stray GC pause of a big test process may add some tens of ms, hence the margin.
      expect(neural.busyMs, report).to.be.lessThan(control.busyMs / 2);
    } finally {
      await synth.close();
    }
  });

  it('one session per model, in its own thread; SVC_ONNX_THREADS sizes its intra-op pool', async () => {
    const scan = await scanVoiceModels(dir);
    const before = osThreads();
    const one = await PiperSpeechSynthesizer.create({ models: scan.piper, phonemizer, threads: 1 });
    const withOne = osThreads() - before;
    const four = await PiperSpeechSynthesizer.create({ models: scan.piper, phonemizer, threads: 4 });
    const withFour = osThreads() - before - withOne;
    try {
      expect(withOne).to.be.greaterThan(0); // the model's worker thread
      // onnxruntime starts threads-1 extra intra-op threads for the session
      expect(withFour - withOne).to.be.at.least(3);
      expect(one.loadedModels()).to.deep.equal([{ engine: 'piper', model: 'en_US-long-medium', bytes: one.loadedModels()[0]!.bytes }]);
      expect(one.loadedModels()[0]!.bytes).to.be.greaterThan(500);
    } finally {
      await Promise.all([one.close(), four.close()]);
    }
  });

  it('an abort mid-synthesis rejects at once and the model keeps serving', async () => {
    const scan = await scanVoiceModels(dir);
    const synth = await PiperSpeechSynthesizer.create({ models: scan.piper, phonemizer });
    try {
      const voice: PresetVoice = synth.voices()[0]!;
      const controller = new AbortController();
      const pending = synth.synthesize(
        { text: LONG_TEXT, voice, prosody: { ...NEUTRAL_PROSODY, rate: 0.25 }, sampleRate: 48000, wordTimings: false },
        controller.signal,
      );
      setTimeout(() => controller.abort(new Error('client went away')), 20);
      const error = await pending.then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).to.match(/client went away|abort/i);
      const after = await synth.synthesize({
        text: 'Hello',
        voice,
        prosody: { ...NEUTRAL_PROSODY },
        sampleRate: 22050,
        wordTimings: false,
      });
      expect(after.samples.length).to.be.greaterThan(0);
    } finally {
      await synth.close();
    }
  });
});
