import type { WordTiming } from '@svc/core';
import type { EspeakTimingEvent } from './espeak-job.js';

/** Scripts written without spaces: each espeak word event is its own word. */
const NO_SPACE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const EDGE_PUNCTUATION = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;

/**
 * REAL word timings from espeak's word events (audio positions in ms). Starts are espeak's; a
 * word ends where espeak's next word, pause or clause end begins (so pauses are not counted as
 * part of a word). Words are the original text's whitespace-separated tokens: espeak splits some
 * tokens into several words (numbers read as many words, elisions like "n'est-ce"), and those
 * events are merged back into the token. In scripts without spaces (Chinese, Japanese, Thai...)
 * each event is a word reaching to the next event.
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
  const isSpace = (i: number): boolean => /\s/u.test(cps[i] ?? ' ');
  const toOriginal = (textPosition: number): number =>
    origin[Math.min(Math.max(textPosition - 1, 0), origin.length - 1)] ?? 0;

  interface Raw {
    index: number;
    start: number;
    end: number;
  }
  const raws: Raw[] = [];
  events.forEach((e, i) => {
    if (e.type !== 'word') return;
    let end = totalSeconds;
    for (let j = i + 1; j < events.length; j++) {
      if (events[j]!.audioMs > e.audioMs) {
        end = events[j]!.audioMs / 1000;
        break;
      }
    }
    raws.push({ index: toOriginal(e.textPosition), start: e.audioMs / 1000, end: Math.min(end, totalSeconds) });
  });

  const words: (WordTiming & { key: number })[] = [];
  raws.forEach((raw, i) => {
    let tokenStart = raw.index;
    while (tokenStart > 0 && !isSpace(tokenStart - 1)) tokenStart--;
    let tokenEnd = raw.index;
    while (tokenEnd < cps.length && !isSpace(tokenEnd)) tokenEnd++;
    const token = cps.slice(tokenStart, tokenEnd).join('');

    if (NO_SPACE_SCRIPT.test(token)) {
      const next = raws[i + 1]?.index;
      const stop = next !== undefined && next > raw.index && next < tokenEnd ? next : tokenEnd;
      const text = cleanWord(cps.slice(raw.index, stop).join(''));
      if (text) words.push({ key: -1 - i, word: text, start: raw.start, end: raw.end });
      return;
    }
    const last = words[words.length - 1];
    if (last && last.key === tokenStart) {
      last.end = Math.max(last.end, raw.end);
      return;
    }
    words.push({ key: tokenStart, word: cleanWord(token) || token, start: raw.start, end: raw.end });
  });
  return words.map(({ word, start, end }) => ({ word, start: round(start), end: round(Math.max(start, end)) }));
}

function cleanWord(text: string): string {
  return text.trim().replace(EDGE_PUNCTUATION, '');
}

const round = (t: number): number => Math.round(t * 1000) / 1000;
