// @test-tier slow: decodes real speech with pocketsphinx
import { expect } from 'chai';
import type { Principal } from '@svc/core';
import { PocketsphinxSpeechRecognizer, POCKETSPHINX_DECODER_ARGS } from '../../src/index.js';
import { DEBIAN_PYTHON, PocketsphinxHelper, POCKETSPHINX_HELPER_SCRIPT } from '../../src/asr/pocketsphinx-helper.js';
import { concat, librivoxClip, silenceMs, speechEdgesMs } from '@svc/adapters-testing';

const principal = {} as Principal;
const RATE = 16000;
const PIECE = 1600;

/**
 * A long pause inside a sentence: 0920 ("had he married a more amiable woman | he might have been
 * made still more respectable than he was") with 2 s of silence at its clause boundary. The
 * decoder's voice activity detector drops most of such a silence before the search, and
 * pocketsphinx shifts every segment's frame numbers by where speech began again: what is measured
 * here is that word times and settled words are still on the recording's own timeline.
 */
const PAUSE_AT = 2.49;
const PAUSE = 2;
const PAUSE_END = PAUSE_AT + PAUSE;

function withPause(samples: Int16Array): Int16Array {
  const at = Math.round(PAUSE_AT * RATE);
  return concat(samples.subarray(0, at), silenceMs(PAUSE * 1000), samples.subarray(at));
}

interface TimedWord {
  word: string;
  start: number;
  end: number;
}

/** The words are where the speech is: around the pause, not across it, and inside the recording. */
function expectPlacedAroundThePause(words: TimedWord[], clip: Int16Array, duration: number): void {
  const before = words.filter((w) => w.start < PAUSE_AT);
  const after = words.filter((w) => w.start >= PAUSE_AT);
  expect(before.length, 'words before the pause').to.be.at.least(4);
  expect(after.length, 'words after the pause').to.be.at.least(6);
  for (const w of before) expect(w.end, `"${w.word}" ends before the pause`).to.be.at.most(PAUSE_AT + 0.05);
  expect(after[0]!.start, 'the first word after the pause').to.be.within(PAUSE_END - 0.05, PAUSE_END + 0.3);
  const edges = speechEdgesMs(clip);
  expect(words[0]!.start).to.be.closeTo(edges.startMs / 1000, 0.3);
  expect(words.at(-1)!.end).to.be.closeTo(PAUSE + edges.endMs / 1000, 0.3);
  expect(words.at(-1)!.end).to.be.at.most(duration + 0.01);
}

describe('pocketsphinx across a long pause inside an utterance: word times, confidence and settled words', function () {
  this.timeout(120_000);

  describe('PocketsphinxSpeechRecognizer.transcribeDetailed (what the transcription endpoint returns)', () => {
    let recognizer: PocketsphinxSpeechRecognizer;
    before(async () => (recognizer = await PocketsphinxSpeechRecognizer.create({ decoders: 1, warmDecoders: 1 })));
    after(() => recognizer.close());

    it('the words after the pause are timed as without it, moved by the pause; the words as they settle cover the transcript', async () => {
      const clip = librivoxClip('0920').samples;
      const plain = await recognizer.transcribeDetailed({ samples: clip, sampleRate: RATE }, { language: 'en', principal });
      const samples = withPause(clip);
      const deltas: string[] = [];
      const paused = await recognizer.transcribeDetailed(
        { samples, sampleRate: RATE },
        { language: 'en', principal, onText: (d) => deltas.push(d) },
      );
      const words = paused.words!;
      expectPlacedAroundThePause(words, clip, paused.duration);
      // The same words at the end of both decodes (the words at the pause may differ): same times, later by the pause.
      let matched = 0;
      for (let i = plain.words!.length - 1, j = words.length - 1; i >= 0 && j >= 0; i--, j--) {
        const [a, b] = [plain.words![i]!, words[j]!];
        if (a.word !== b.word || a.start < PAUSE_AT) break;
        expect(b.start, `start of "${b.word}"`).to.be.closeTo(a.start + PAUSE, 0.1);
        expect(b.end, `end of "${b.word}"`).to.be.closeTo(a.end + PAUSE, 0.1);
        matched++;
      }
      expect(matched, 'words timed in both decodes').to.be.at.least(5);
      // The lattice posteriors are looked up at the words' frames: as sure of the words as without the pause.
      expect(paused.segments[0]!.avgLogprob).to.be.within(-3, 0);
      expect(paused.segments[0]!.avgLogprob).to.be.closeTo(plain.segments[0]!.avgLogprob!, 1);
      // Streamed text: all but the words of the last second settled while the recording was decoded.
      const joined = deltas.join('');
      expect(paused.text.startsWith(joined)).to.equal(true);
      const settledByTheEnd = words.filter((w) => w.end <= paused.duration - 1.3).length;
      expect(joined.split(' ').length).to.be.at.least(settledByTheEnd);
    });

    it('speech after a second of silence: its words are as sure as without the silence (posteriors found at their frames)', async () => {
      const clip = librivoxClip('0920').samples;
      const plain = await recognizer.transcribeDetailed({ samples: clip, sampleRate: RATE }, { language: 'en', principal });
      const late = await recognizer.transcribeDetailed(
        { samples: concat(silenceMs(1000), clip), sampleRate: RATE },
        { language: 'en', principal },
      );
      expect(late.segments[0]!.avgLogprob).to.be.within(-3, 0);
      expect(late.segments[0]!.avgLogprob).to.be.closeTo(plain.segments[0]!.avgLogprob!, 0.5);
    });
  });

  describe('PocketsphinxHelper reporting settled words (K lines)', () => {
    let helper: PocketsphinxHelper;
    before(async () => {
      helper = new PocketsphinxHelper(DEBIAN_PYTHON, POCKETSPHINX_HELPER_SCRIPT, POCKETSPHINX_DECODER_ARGS, { direct: true });
      await helper.ready;
    });
    after(() => helper.kill());

    it('a word settles once the decoder is a second of the recording past its end: the words before the pause as soon as speech resumes', async () => {
      const clip = librivoxClip('0920').samples;
      const samples = withPause(clip);
      const duration = samples.length / RATE;
      const reports: { at: number; words: string[] }[] = [];
      const decodedBefore = helper.decodedSamples;
      // A settled report comes before the acknowledgement of the 100 ms piece it was decoded from.
      helper.beginReportingSettled((text) =>
        reports.push({
          at: Math.min(helper.decodedSamples - decodedBefore + PIECE, samples.length) / RATE,
          words: text.split(' ').filter((w) => w !== ''),
        }),
      );
      helper.write(samples);
      const { text, words } = await helper.endWithWordTimes();
      expectPlacedAroundThePause(words, clip, duration);
      const final = text.split(' ');
      expect(reports.length).to.be.at.least(5);
      for (const report of reports) {
        expect(final.slice(0, report.words.length), `settled at ${report.at} s`).to.deep.equal(report.words);
        // Not early: every word of it ended a second or more before the audio decoded so far.
        for (const w of words.slice(0, report.words.length))
          expect(w.end, `"${w.word}" settled at ${report.at} s`).to.be.at.most(report.at - 0.95);
      }
      // Not late: a second after its end, or (said before the pause) just after the pause.
      words.forEach((w, i) => {
        const due = Math.max(w.end + 1.3, w.end < PAUSE_AT ? PAUSE_END + 0.3 : 0);
        if (due > duration) return;
        const settled = reports.find((r) => r.words.length > i);
        expect(settled?.at, `"${w.word}" (ends at ${w.end} s) settled by ${due.toFixed(2)} s`).to.be.at.most(due);
      });
    });
  });
});
