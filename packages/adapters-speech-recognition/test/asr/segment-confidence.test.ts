import { expect } from 'chai';
import { principal, testRecognizers } from './test-recognizers.js';
import { deflateSync } from 'node:zlib';
import { WhisperLogMel } from '../../src/asr/features/whisper-log-mel.js';
import { TEST_WHISPER_TOKENS as W } from '@svc/adapters-testing';

const sine = (samples: number) => Float32Array.from({ length: samples }, (_, i) => 0.25 * Math.sin((2 * Math.PI * 300 * i) / 16000));
const int16 = (f: Float32Array) => Int16Array.from(f, (v) => Math.round(v * 32767));
const ratio = (text: string) => Buffer.byteLength(text) / deflateSync(Buffer.from(text)).length;
const logSumExp = (values: number[]) => {
  const max = Math.max(...values);
  return max + Math.log(values.reduce((sum, v) => sum + Math.exp(v - max), 0));
};

/**
 * A step's log-probability as openai/whisper computes it: log-softmax of the logits after the logit
 * filters (suppressed ids removed), at the chosen token. `scores` are the logits that are not 0;
 * `allowed` is how many ids are left after the filters (each of the others scores 0).
 */
function stepLogprob(chosen: number, scores: Map<number, number>, allowed: number): number {
  const values = [...scores.values(), ...new Array<number>(allowed - scores.size).fill(0)];
  return scores.get(chosen)! - logSumExp(values);
}

describe('Whisper and Moonshine segments carry avg_logprob, compression_ratio, no_speech_prob and temperature', function () {
  this.timeout(120000);
  const { root, recognizer } = testRecognizers('svc-asr-confidence-');

  it('Whisper: the mean log-probability of the tokens and EOS (sum / (tokens + 1)), the text compression ratio and P(<|nospeech|>) at <|startoftranscript|>, at temperature 0', async () => {
    const r = await recognizer('whisper', { family: 'whisper' });
    const audio = sine(16000);
    const [segment] = (await r.transcribeDetailed({ samples: int16(audio), sampleRate: 16000 }, { language: 'en', principal })).segments;
    // The test decoder's logits (test-asr-folder.ts): a next-token table, a position table, the
    // encoder mean m times 40 on " loud" (9) and +1 on " world" (3) on cached steps. The encoder
    // outputs the mean of the log-mel features, so m is that mean.
    const features = new WhisperLogMel(80).compute(audio);
    const m = features.reduce((a, b) => a + b, 0) / features.length;
    const loud = 40 * m;
    // Ids 0-40 are text and EOS; everything from <|startoftranscript|> (41) up is suppressed, and
    // " bad" (7) always; the first step also suppresses the blank (1) and EOS (40).
    const steps = [
      stepLogprob(
        2,
        new Map([
          [2, 9],
          [9, loud],
        ]),
        38,
      ), // " hello" (the blank scored 10 but is begin-suppressed)
      stepLogprob(
        3,
        new Map([
          [10, 9.5],
          [3, 10],
          [9, loud],
        ]),
        40,
      ), // " world" (9 + 1 on a cached step)
      stepLogprob(
        4,
        new Map([
          [4, 10],
          [3, 1],
          [9, loud],
        ]),
        40,
      ), // " caf"
      stepLogprob(
        8,
        new Map([
          [5, 10],
          [8, 20],
          [3, 1],
          [9, loud],
        ]),
        40,
      ), // " dear" (position 6 scores 20)
      stepLogprob(
        W.eos,
        new Map([
          [W.eos, 10],
          [3, 1],
          [9, loud],
        ]),
        40,
      ), // EOS
    ];
    expect(segment!.text).to.equal('hello world caf dear');
    expect(segment!.avgLogprob).to.be.closeTo(steps.reduce((a, b) => a + b, 0) / 5, 1e-4);
    expect(segment!.compressionRatio).to.be.closeTo(ratio('hello world caf dear'), 1e-9);
    // No-speech: the softmax of the whole row after <|startoftranscript|> (no filter), at <|nospeech|> (scores 0 there).
    expect(segment!.noSpeechProb).to.be.closeTo(1 / Math.exp(logSumExp([10, 9, loud, ...new Array<number>(W.vocab - 3).fill(0)])), 1e-9);
    expect(segment!.temperature).to.equal(0);
  });

  it('Whisper: a window whose decode loops (compression ratio > 2.4) is decoded again at a higher temperature, as openai/whisper falls back', async () => {
    // After the prompt " hello", then " hello" (10) or " world" (9.9) forever: greedy never leaves the loop.
    const r = await recognizer('whisper-loop', {
      family: 'whisper',
      generation: { max_length: 40 },
      tables: {
        vocab: W.vocab,
        maxPositions: 48,
        next: [
          [W.noTimestamps, 2, 10],
          [2, 2, 10],
          [2, 3, 9.9],
          [3, W.eos, 10],
        ],
      },
    });
    const [segment] = (await r.transcribeDetailed({ samples: int16(sine(16000)), sampleRate: 16000 }, { language: 'en', principal }))
      .segments;
    expect(segment!.temperature).to.be.greaterThan(0);
    expect(segment!.compressionRatio).to.be.at.most(2.4);
    expect(segment!.avgLogprob).to.be.at.least(-1);
    expect(segment!.text).to.match(/^(hello )+world$/);
    expect(segment!.text).to.not.equal(new Array(36).fill('hello').join(' '));
  });

  it('Whisper: a window the model hears as silence (P(<|nospeech|>) > 0.6 and avg_logprob < -1) gives no segment, and is not re-decoded', async () => {
    // <|nospeech|> after <|startoftranscript|> scores 12; after the prompt every token scores the same.
    const r = await recognizer('whisper-silence', {
      family: 'whisper',
      tables: { vocab: W.vocab, maxPositions: 16, next: [[W.sot, W.noSpeech, 12]] },
    });
    const result = await r.transcribeDetailed({ samples: int16(sine(16000)), sampleRate: 16000 }, { language: 'en', principal });
    expect(result.segments).to.deep.equal([]);
    expect(result.text).to.equal('');
  });

  it('Moonshine: avg_logprob and compression_ratio from its decoder; no no_speech_prob (it has no such token); temperature 0', async () => {
    const r = await recognizer('moonshine', { family: 'moonshine' });
    const [segment] = (await r.transcribeDetailed({ samples: int16(sine(16000)), sampleRate: 16000 }, { language: 'en', principal }))
      .segments;
    expect(segment!.text).to.equal('hello worldé');
    // Moonshine's test table: 1 -> 3 -> 4 -> 5 -> 6 -> EOS, each scoring 10 among 12 ids (nothing suppressed).
    const step = 10 - logSumExp([10, ...new Array<number>(11).fill(0)]);
    expect(segment!.avgLogprob).to.be.closeTo(step, 1e-4);
    expect(segment!.compressionRatio).to.be.closeTo(ratio('hello worldé'), 1e-9);
    expect(segment!).to.not.have.property('noSpeechProb');
    expect(segment!.temperature).to.equal(0);
  });
});
