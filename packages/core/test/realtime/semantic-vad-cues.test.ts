import { expect } from 'chai';
import {
  CREAK_RATIO,
  MIN_SPEECH_MS_UNHEARD,
  MIN_UNRECOGNIZED_SPEECH_MS,
  pitchCues,
  SEMANTIC_PAUSE_MS,
  SemanticTurnEnd,
  UNCLEAR_WAIT_MS,
  UNFINISHED_WAIT_MS,
  defaultTurnDetection,
} from '../../src/realtime/index.js';
import { seededNoise as noise } from '../fakes/index.js';

const RATE = 16000;

/**
 * A voice-like sound (a fundamental and two harmonics, with noise 30 dB below it) whose pitch
 * follows `hzAt(ms)`, each period a little longer or shorter than the last (jitter of about 1 %,
 * as a human voice has: a perfectly periodic tone correlates as well over two periods as over one)
 * ; `tail` appends a last stretch: creak (the period doubled: half the pitch), or a fricative
 * (noise only).
 */
function voice(ms: number, hzAt: (t: number) => number, tail?: { kind: 'creak' | 'fricative'; ms: number }): Int16Array {
  const rand = noise(7);
  const total = ms + (tail?.ms ?? 0);
  const out = new Int16Array(Math.round((total / 1000) * RATE));
  let phase = 0;
  let jitter = 1;
  for (let i = 0; i < out.length; i++) {
    const t = (i / RATE) * 1000;
    const inTail = t >= ms;
    if (inTail && tail!.kind === 'fricative') {
      out[i] = Math.round(3000 * rand());
      continue;
    }
    const hz = (inTail ? hzAt(ms) / 2 : hzAt(t)) * jitter;
    const before = phase;
    phase += (2 * Math.PI * hz) / RATE;
    // A new period: a new length.
    if (Math.floor(phase / (2 * Math.PI)) !== Math.floor(before / (2 * Math.PI))) jitter = 1 + 0.01 * rand();
    out[i] = Math.round(6000 * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase)) + 200 * rand());
  }
  return out;
}
const glide = (from: number, to: number, startMs: number, endMs: number) => (t: number) =>
  t < startMs ? from : from + (to - from) * Math.min(1, (t - startMs) / (endMs - startMs));

describe('semantic_vad cues: creak, fricatives, a recognizer behind', () => {
  it('hears a falling and a level voice through noise', () => {
    expect(pitchCues(voice(1200, glide(120, 85, 850, 1200)), RATE).ending).to.equal('falling');
    const level = pitchCues(
      voice(1200, () => 120),
      RATE,
    );
    expect(level.ending).to.equal('level');
    expect(level.creakFrames).to.equal(0);
    expect(level.medianHz).to.be.within(110, 130);
  });

  it('takes an ending that rises and then drops into creak for a fall (a read sentence end)', () => {
    const rise = glide(90, 125, 900, 1150);
    expect(pitchCues(voice(1150, rise), RATE).ending, 'the rise alone').to.equal('rising');
    const creaky = pitchCues(voice(1150, rise, { kind: 'creak', ms: 80 }), RATE);
    expect(creaky.creakFrames).to.be.at.least(4);
    expect(creaky.ending).to.equal('falling');
    // Creak is below the speaker's range: a dip that stays above CREAK_RATIO of the median is none.
    const dip = pitchCues(voice(1150, glide(100, 100 * (CREAK_RATIO + 0.1), 1050, 1150)), RATE);
    expect(dip.creakFrames).to.equal(0);
  });

  it('takes a fricative after the voice for no pitch at all (not creak, not a fall)', () => {
    const cues = pitchCues(
      voice(1200, () => 120, { kind: 'fricative', ms: 120 }),
      RATE,
    );
    expect(cues.ending).to.equal('level');
    expect(cues.creakFrames).to.equal(0);
  });

  describe('the rule when the recognizer has not heard the end', () => {
    const rule = new SemanticTurnEnd();
    const td = defaultTurnDetection('semantic_vad');
    const unclearWait = 500 + UNCLEAR_WAIT_MS - SEMANTIC_PAUSE_MS;
    const behind = { behindMs: 1000, speechMs: MIN_SPEECH_MS_UNHEARD };

    it('judges by the voice alone: a fall after long enough speech ends the turn at once', () => {
      // Stale words ("... to do for") no longer decide: the speech went on past them.
      expect(rule.extraWaitMs(td, 'in his power to do for', 'falling', behind)).to.equal(0);
      for (const pitch of ['level', 'rising', 'unknown'] as const)
        expect(rule.extraWaitMs(td, 'in his power to do for', pitch, behind), pitch).to.equal(unclearWait);
      // A short phrase is as unclear as two words.
      expect(rule.extraWaitMs(td, '', 'falling', { ...behind, speechMs: MIN_SPEECH_MS_UNHEARD - 1 })).to.equal(unclearWait);
    });

    it('judges by the words once the recognizer has heard the speech (behind by no more than the pause)', () => {
      const heard = { behindMs: SEMANTIC_PAUSE_MS, speechMs: 3000 };
      expect(rule.extraWaitMs(td, 'put it on the', 'falling', heard)).to.equal(500 + UNFINISHED_WAIT_MS - SEMANTIC_PAUSE_MS);
      expect(rule.extraWaitMs(td, 'what time is it', 'falling', heard)).to.equal(0);
      expect(rule.extraWaitMs(td, 'hello', 'falling', heard)).to.equal(unclearWait);
    });
  });

  describe('the rule when the recognizer heard speech after its last word and made no word of it', () => {
    const rule = new SemanticTurnEnd();
    const td = defaultTurnDetection('semantic_vad');
    const unclearWait = 500 + UNCLEAR_WAIT_MS - SEMANTIC_PAUSE_MS;
    const unfinishedWait = 500 + UNFINISHED_WAIT_MS - SEMANTIC_PAUSE_MS;
    // pocketsphinx on "... to do for them": the creaky "them" is 140-230 ms of spoken noise after "for".
    const missed = { behindMs: 0, speechMs: 6500, unrecognizedSpeechMs: 140 };

    it('sets the words aside: a falling voice after long enough speech ends the turn at once', () => {
      expect(rule.extraWaitMs(td, 'in his power to do for', 'falling', missed)).to.equal(0);
      expect(
        rule.extraWaitMs(td, 'in his power to do for', 'falling', { ...missed, unrecognizedSpeechMs: MIN_UNRECOGNIZED_SPEECH_MS }),
      ).to.equal(0);
      // The voice alone judges: anything but a fall waits as an unclear end, a short phrase too.
      for (const pitch of ['level', 'rising', 'unknown'] as const)
        expect(rule.extraWaitMs(td, 'in his power to do for', pitch, missed), pitch).to.equal(unclearWait);
      expect(rule.extraWaitMs(td, 'go to', 'falling', { ...missed, speechMs: MIN_SPEECH_MS_UNHEARD - 1 })).to.equal(unclearWait);
    });

    it('keeps finished words finished: what follows them is a soft tail, and a fall ends even a short phrase', () => {
      const short = { ...missed, speechMs: MIN_SPEECH_MS_UNHEARD - 500 };
      expect(rule.extraWaitMs(td, 'what time is it', 'falling', short)).to.equal(0);
      expect(rule.extraWaitMs(td, 'what time is it', 'rising', short)).to.equal(unclearWait);
      // Two words are not enough to read as finished: the speech's length judges, as for unfinished words.
      expect(rule.extraWaitMs(td, 'thank you', 'falling', short)).to.equal(unclearWait);
    });

    it('keeps judging by the words when only silence (or less than a syllable) follows the last word, as at a mid-sentence pause', () => {
      // "I'd like to ... go home": the last word ends at the pause.
      for (const unrecognizedSpeechMs of [undefined, 0, MIN_UNRECOGNIZED_SPEECH_MS - 1]) {
        const paused = { behindMs: 0, speechMs: 3000, unrecognizedSpeechMs };
        expect(rule.extraWaitMs(td, "i'd like to", 'falling', paused), String(unrecognizedSpeechMs)).to.equal(unfinishedWait);
        expect(rule.extraWaitMs(td, 'in his power to do for', 'falling', paused)).to.equal(unfinishedWait);
        expect(rule.extraWaitMs(td, 'what time is it', 'falling', paused)).to.equal(0);
        expect(rule.extraWaitMs(td, 'what time is it', 'level', paused)).to.equal(unclearWait);
      }
    });
  });
});
