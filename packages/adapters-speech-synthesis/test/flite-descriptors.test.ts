// @test-tier slow: synthesizes with the real engine
import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import { NEUTRAL_PROSODY } from '@svc/core';
import { FliteSpeechSynthesizer } from '../src/index.js';

const openDescriptors = (): number => readdirSync('/proc/self/fd').length;

/** Issue 7, point 2: every flite call used to leave one descriptor on its work directory open for good. */
describe('FliteSpeechSynthesizer: file descriptors (real flite.wasm, /proc/self/fd)', function () {
  this.timeout(120_000);

  it('150 syntheses, with worker threads retired along the way, leave the descriptor count flat', async () => {
    // Small maxJobsPerWorker so threads are retired and replaced during the run, as in production.
    const flite = await FliteSpeechSynthesizer.create({ poolSize: 2, maxJobsPerWorker: 20 });
    try {
      const voice = flite.voices().find((v) => v.name === 'kal')!;
      const say = (i: number) =>
        flite.synthesize({ text: `Sentence number ${i}.`, voice, sampleRate: 16000, wordTimings: false, prosody: NEUTRAL_PROSODY });
      await say(0); // warm-up: the pool's own descriptors exist before the baseline
      const before = openDescriptors();
      for (let i = 1; i <= 150; i += 3) await Promise.all([say(i), say(i + 1), say(i + 2)]);
      const after = openDescriptors();
      // A replaced thread's own handles (event loop, message ports) may differ by a few; one per call may not.
      expect(after - before, `descriptors before ${before}, after ${after}`).to.be.at.most(8);
    } finally {
      await flite.close();
    }
  });
});
