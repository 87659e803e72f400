// @test-tier slow: decodes real speech with pocketsphinx
import { expect } from 'chai';
import type { Principal, TranscriptSegment } from '@svc/core';
import { compressionRatio, PocketsphinxSpeechRecognizer } from '../../src/index.js';
import { concat, librivoxClip, silenceMs } from '@svc/adapters-testing';

const principal = {} as Principal;

/** The clip with white noise added at `snrDb` (a fixed seed, so the run is repeatable). */
function withNoise(samples: Int16Array, snrDb: number): Int16Array {
  let power = 0;
  for (const s of samples) power += s * s;
  const noiseRms = Math.sqrt(power / samples.length / 10 ** (snrDb / 10));
  let seed = 12345;
  const uniform = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
  return Int16Array.from(samples, (s) => Math.max(-32768, Math.min(32767, Math.round(s + uniform() * noiseRms * Math.sqrt(12)))));
}

describe('PocketsphinxSpeechRecognizer.transcribeDetailed: confidence figures and text as it settles', function () {
  this.timeout(90_000);
  let recognizer: PocketsphinxSpeechRecognizer;
  before(async () => (recognizer = await PocketsphinxSpeechRecognizer.create({ decoders: 1, warmDecoders: 1 })));
  after(() => recognizer.close());
  const segmentOf = async (samples: Int16Array): Promise<TranscriptSegment> => {
    const result = await recognizer.transcribeDetailed({ samples, sampleRate: 16000 }, { language: 'en', principal });
    expect(result.segments).to.have.length(1);
    return result.segments[0]!;
  };

  it("the segment carries the lattice posterior (avgLogprob), the VAD's no-speech share, Whisper's compression ratio and temperature 0", async () => {
    const clean = await segmentOf(librivoxClip('0930').samples);
    expect(clean.avgLogprob).to.be.within(-3, 0);
    expect(clean.noSpeechProb).to.be.within(0, 0.2);
    expect(clean.compressionRatio).to.equal(compressionRatio(clean.text));
    expect(clean.temperature).to.equal(0);
    console.log(
      `      clean 0930: avg_logprob ${clean.avgLogprob!.toFixed(3)}, no_speech ${clean.noSpeechProb!.toFixed(3)}, "${clean.text}"`,
    );

    // Five seconds of silence around the same speech: the no-speech share rises with it.
    const padded = await segmentOf(concat(silenceMs(3000), librivoxClip('0930').samples, silenceMs(3000)));
    console.log(`      padded 0930: no_speech ${padded.noSpeechProb!.toFixed(3)}`);
    expect(padded.noSpeechProb! - clean.noSpeechProb!).to.be.above(0.3);
  });

  it('is less sure of speech buried in noise than of the same speech clean', async () => {
    let clean = 0;
    let noisy = 0;
    for (const id of ['0880', '0920', '0930']) {
      const samples = librivoxClip(id).samples;
      clean += (await segmentOf(samples)).avgLogprob!;
      noisy += (await segmentOf(withNoise(samples, 0))).avgLogprob!;
    }
    console.log(`      mean avg_logprob: clean ${(clean / 3).toFixed(3)}, at 0 dB SNR ${(noisy / 3).toFixed(3)}`);
    expect(noisy).to.be.below(clean);
  });

  it('with onText, reports words as they settle while decoding: the pieces joined start the final text', async () => {
    const deltas: string[] = [];
    const result = await recognizer.transcribeDetailed(
      { samples: librivoxClip('0870').samples, sampleRate: 16000 },
      { language: 'en', principal, onText: (d) => deltas.push(d) },
    );
    expect(deltas.length).to.be.at.least(5);
    const joined = deltas.join('');
    expect(result.text.startsWith(joined)).to.equal(true);
    expect(joined.split(' ').length).to.be.at.least(result.text.split(' ').length - 4); // all but the last second
    expect(deltas.slice(1).every((d) => d.startsWith(' '))).to.equal(true);
  });
});
