import { expect } from 'chai';
import type { WordTiming } from '@svc/core';
import { neuralWordTimings, type WordSpan } from '../../src/neural/neural-audio.js';
import { alignWordTimings, voicedSpanAndPauses } from '../../src/neural/word-alignment.js';

const RATE = 16000;
const SECONDS = 2.7;
/** Tone bursts standing for words, with silences of known positions between them (seconds, off the 10 ms frame grid). */
const BURSTS = [
  { word: 'Hello,', start: 0.305, end: 0.623 },
  { word: 'big', start: 0.874, end: 1.052 },
  { word: 'world.', start: 1.137, end: 1.706 },
  { word: 'Again', start: 2.043, end: 2.396 },
];
/** Token ranges whose shares differ from the bursts' lengths, as phoneme counts do (bos at 0, eos after). */
const SPANS: WordSpan[] = [
  { word: 'Hello,', start: 1, end: 8 },
  { word: 'big', start: 9, end: 13 },
  { word: 'world.', start: 14, end: 20 },
  { word: 'Again', start: 21, end: 27 },
];
const TOKENS = 30;

/** 16-bit audio: a 220 Hz tone (with a 30 ms stop-like dip inside each burst) over faint noise. */
function syntheticSpeech(): Int16Array {
  const samples = new Int16Array(Math.round(SECONDS * RATE));
  let seed = 7;
  for (let i = 0; i < samples.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const t = i / RATE;
    const burst = BURSTS.find((b) => t >= b.start && t < b.end);
    const dip = burst && Math.abs(t - (burst.start + burst.end) / 2) < 0.015;
    const tone = burst && !dip ? 8000 * Math.sin(2 * Math.PI * 220 * t) : 0;
    samples[i] = Math.round(tone + ((seed / 2147483648) * 2 - 1) * 20);
  }
  return samples;
}

function worstError(words: WordTiming[]): number {
  expect(words.map((w) => w.word)).to.deep.equal(BURSTS.map((b) => b.word));
  return Math.max(...words.flatMap((w, i) => [Math.abs(w.start - BURSTS[i]!.start), Math.abs(w.end - BURSTS[i]!.end)]));
}

describe('neural word alignment (no durations from the model)', () => {
  const samples = syntheticSpeech();

  it('finds the voiced span and the pauses, not the dips inside words', () => {
    const { voiced, pauses } = voicedSpanAndPauses(samples, RATE);
    expect(voiced!.start).to.be.closeTo(BURSTS[0]!.start, 0.011);
    expect(voiced!.end).to.be.closeTo(BURSTS.at(-1)!.end, 0.011);
    expect(pauses).to.have.length(3);
    pauses.forEach((p, i) => {
      expect(p.start).to.be.closeTo(BURSTS[i]!.end, 0.011);
      expect(p.end).to.be.closeTo(BURSTS[i + 1]!.start, 0.011);
    });
  });

  it('lands every word edge within 30 ms of the audio, where the token share misses by far more', () => {
    const share = neuralWordTimings(SPANS, TOKENS, SECONDS);
    const aligned = neuralWordTimings(SPANS, TOKENS, SECONDS, undefined, { samples, sampleRate: RATE });
    const before = worstError(share);
    const after = worstError(aligned);
    if (process.env.SHOW_ALIGNMENT)
      console.log(`worst edge error: token share ${(before * 1000).toFixed(1)} ms, aligned ${(after * 1000).toFixed(1)} ms`);
    expect(before).to.be.greaterThan(0.1);
    expect(after).to.be.lessThan(0.03);
    for (let i = 1; i < aligned.length; i++) expect(aligned[i]!.start).to.be.at.least(aligned[i - 1]!.end);
  });

  it('keeps timings from the model durations as they are', () => {
    const durations = new Float32Array(TOKENS).fill(1);
    const withAudio = neuralWordTimings(SPANS, TOKENS, SECONDS, durations, { samples, sampleRate: RATE });
    expect(withAudio).to.deep.equal(neuralWordTimings(SPANS, TOKENS, SECONDS, durations));
  });

  it('leaves the estimate alone for silent audio and handles no words', () => {
    const estimate = neuralWordTimings(SPANS, TOKENS, SECONDS);
    expect(alignWordTimings(estimate, new Int16Array(RATE), RATE)).to.deep.equal(estimate);
    expect(alignWordTimings([], samples, RATE)).to.deep.equal([]);
  });
});
