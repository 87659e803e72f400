import type { WordTiming } from '@svc/core';
import type { EspeakTimingEvent } from './espeak-job.js';
import { anchorEspeakWords, shareEspeakWords, writtenWords, type WrittenWord } from './written-words.js';

/** Scripts written without spaces: each espeak word event is its own word. */
const NO_SPACE_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const EDGE_PUNCTUATION = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;

/** One spoken stretch: a phoneme of an espeak word (or the whole word when espeak reported no phonemes). */
interface Stretch {
  start: number;
  end: number;
}

/** An espeak word event: where it is in the original text and its phonemes' times. */
interface SpokenWord {
  index: number;
  stretches: Stretch[];
}

/**
 * REAL word timings from espeak's word and phoneme events (audio positions in ms), one per written
 * word (space-separated token; written-words.ts). A word starts at its first phoneme and ends where
 * espeak's next word, pause or clause end begins (pauses are not part of a word). espeak splits
 * some tokens into several words (numbers read as many words, elisions like "n'est-ce"): those are
 * merged back into the token. It also joins words ("Bonjour tout le monde" is two espeak words:
 * "tout le monde" is one): the joined word's phonemes are split among its written words by letters,
 * each boundary at a phoneme's start. In scripts without spaces (Chinese, Japanese, Thai...) each
 * event is a word reaching to the next event. A word espeak said nothing for gets an empty timing
 * where the word before it ends.
 *
 * @param original the text as the caller wrote it
 * @param origin   for each code point of the escaped text espeak read, its index in `original`
 */
export function espeakWordTimings(
  original: string,
  origin: readonly number[],
  events: readonly EspeakTimingEvent[],
  totalSeconds: number,
): WordTiming[] {
  const cps = [...original];
  const spoken = spokenWords(
    events,
    totalSeconds,
    (textPosition) => origin[Math.min(Math.max(textPosition - 1, 0), origin.length - 1)] ?? 0,
  );
  const words = writtenWords(original);
  const anchors = anchorEspeakWords(
    words,
    spoken.map((s) => s.index),
  );
  const shares = shareEspeakWords(
    words,
    anchors,
    spoken.map((s) => s.stretches),
  );
  const timings: WordTiming[] = [];
  let previousEnd = 0;
  words.forEach((w, i) => {
    if (NO_SPACE_SCRIPT.test(w.text)) {
      timings.push(
        ...noSpaceWords(
          w,
          cps,
          spoken.filter((_, k) => anchors[k] === i),
        ),
      );
    } else {
      const units = shares[i]!.units;
      const start = units[0]?.start ?? previousEnd;
      const end = units[units.length - 1]?.end ?? start;
      timings.push({ word: cleanWord(w.text) || w.text, start, end });
    }
    previousEnd = timings[timings.length - 1]?.end ?? previousEnd;
  });
  return timings.map(({ word, start, end }) => ({ word, start: round(start), end: round(Math.max(start, end)) }));
}

/**
 * espeak's word events with their phonemes' times: a word ends where the next word, pause or clause
 * end begins; each phoneme reaches to the next one, the last to the word's end.
 */
function spokenWords(
  events: readonly EspeakTimingEvent[],
  totalSeconds: number,
  toOriginal: (textPosition: number) => number,
): SpokenWord[] {
  const words: SpokenWord[] = [];
  events.forEach((e, i) => {
    if (e.type !== 'word') return;
    let end = totalSeconds;
    const phonemes: number[] = [];
    let laterWord = false;
    for (let j = i + 1; j < events.length; j++) {
      const next = events[j]!;
      laterWord ||= next.type === 'word';
      if (next.type === 'phoneme' && !laterWord) {
        if (phonemes.length === 0 || next.audioMs > phonemes[phonemes.length - 1]!) phonemes.push(next.audioMs);
        continue;
      }
      if (next.audioMs > e.audioMs) {
        end = next.audioMs / 1000;
        break;
      }
    }
    end = Math.min(end, totalSeconds);
    const starts = phonemes.map((ms) => ms / 1000).filter((t) => t < end);
    // The word starts at its event, which may come a little before its first phoneme's.
    if (starts.length === 0 || starts[0]! > e.audioMs / 1000) starts.splice(0, starts.length === 0 ? 0 : 1, e.audioMs / 1000);
    const stretches = starts.map((start, k) => ({ start, end: starts[k + 1] ?? end }));
    words.push({ index: toOriginal(e.textPosition), stretches });
  });
  return words;
}

/** Words of a script without spaces: each espeak word in the token is a word, reaching to the next event's text. */
function noSpaceWords(token: WrittenWord, cps: readonly string[], spoken: readonly SpokenWord[]): WordTiming[] {
  const out: WordTiming[] = [];
  spoken.forEach((s, k) => {
    const next = spoken[k + 1]?.index;
    const stop = next !== undefined && next > s.index && next < token.end ? next : token.end;
    const text = cleanWord(cps.slice(Math.max(s.index, token.start), stop).join(''));
    const first = s.stretches[0];
    const last = s.stretches[s.stretches.length - 1];
    if (text && first && last) out.push({ word: text, start: first.start, end: last.end });
  });
  return out;
}

function cleanWord(text: string): string {
  return text.trim().replace(EDGE_PUNCTUATION, '');
}

const round = (t: number): number => Math.round(t * 1000) / 1000;
