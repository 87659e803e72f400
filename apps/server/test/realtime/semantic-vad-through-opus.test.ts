import { expect } from 'chai';
import { judgeTurn, PITCH_CONTEXT_MS, pitchCues } from '@svc/core';
import { librivoxSentences } from '../helpers/librivox.js';
import { throughOpus } from '../helpers/opus-round-trip.js';
import { PAUSED_AT } from '../helpers/paused-sentences.js';
import { RATE, recording } from '../helpers/recorded-speech.js';
import { lastLoudMs } from '../../bench/voice-caller.js';

/** Where the speech is judged to end, shifted by these (ms): the detector's frames fall anywhere. */
const ALIGNMENTS_MS = [0, 10, 20, 30];

function pitchBefore(samples: Int16Array, endMs: number) {
  const end = Math.min(samples.length, Math.round((endMs / 1000) * RATE));
  return pitchCues(samples.subarray(Math.max(0, end - Math.round((PITCH_CONTEXT_MS / 1000) * RATE)), end), RATE);
}

/**
 * semantic_vad over WebRTC judges what the browser's codec delivers: libopus in its VOIP mode
 * high-passes the voice and codes it with SILK's pitch predictor, which weakens the period doubling
 * of a reader's creak at a sentence's end (docs/realtime.md, semantic_vad). The judge must still hear
 * that fall, and must not hear one at a mid-sentence pause.
 */
describe('semantic_vad: the voice judged after the browser codec (Opus VOIP)', () => {
  it('hears the reader\'s fall into creak at "... ill disposed young man" through the codec, at every alignment', () => {
    const sentence = librivoxSentences().find((s) => s.words.endsWith('young man'))!;
    const endMs = lastLoudMs(Buffer.from(sentence.samples.buffer, sentence.samples.byteOffset, sentence.samples.byteLength));
    const coded = throughOpus(sentence.samples, RATE);
    for (const shift of ALIGNMENTS_MS) {
      const cues = pitchBefore(coded, endMs + shift);
      expect(cues.ending, `+${shift} ms: ratio ${cues.endingRatio}, creak ${cues.creakFrames}`).to.equal('falling');
    }
  });

  it('hears no finished turn at any of the twenty mid-sentence pauses through the codec', () => {
    const ended: string[] = [];
    for (const p of PAUSED_AT) {
      const coded = throughOpus(recording(p.file), RATE);
      const wordsSoFar = p.words.split('|')[0]!;
      for (const shift of ALIGNMENTS_MS) {
        const cues = pitchBefore(coded, p.seconds * 1000 + shift);
        if (judgeTurn(wordsSoFar) === 'finished' && cues.ending === 'falling') ended.push(`${p.words} (+${shift} ms)`);
      }
    }
    expect(ended).to.deep.equal([]);
  });
});
