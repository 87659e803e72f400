import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { EngineError, NEUTRAL_PROSODY } from '@svc/core';
import { FliteSpeechSynthesizer } from '../src/index.js';

/** Issue 7, point 4: a failing engine call used to put '<tmp>/svc-flite-.../out.wav' in the 500 body. */
describe('FliteSpeechSynthesizer: engine failures say what failed without server paths', function () {
  this.timeout(60_000);

  it('a call whose work directory vanished rejects with a plain-words message; the path is in detail only', async () => {
    const flite = await FliteSpeechSynthesizer.create({ poolSize: 1 });
    try {
      const workRoot = (flite as unknown as { workRoot: string }).workRoot;
      rmSync(workRoot, { recursive: true, force: true });
      const voice = flite.voices().find((v) => v.name === 'kal')!;
      const err = await flite
        .synthesize({ text: 'Hello there.', voice, sampleRate: 16000, wordTimings: false, prosody: NEUTRAL_PROSODY })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).to.be.instanceOf(EngineError);
      const engineError = err as EngineError;
      expect(engineError.message).to.not.include(workRoot);
      expect(engineError.message).to.not.match(/\/[\w.-]+\//);
      expect(engineError.message).to.match(/try again/i);
      expect(engineError.detail).to.be.a('string').and.include('ENOENT');
    } finally {
      await flite.close();
    }
  });
});
