import type { WordTiming } from '@svc/core';
import type { FliteSegment } from './flite-job.js';

/**
 * Word timings for flite output. ESTIMATES, built on real data:
 *
 * flite reports every phone with its real end time (`-psdur`) but not which word a phone belongs
 * to. So: the text is cut into phrases at punctuation and the phones into runs at flite's pauses;
 * when the counts agree each phrase gets its run (phrase boundaries are then exact). Inside a run,
 * phones are shared among the words in proportion to a spelling-based guess of each word's phone
 * count, and every word boundary falls on a real phone boundary. Typical error: a phone or so
 * (tens of milliseconds) inside a phrase; phrase starts and ends are exact.
 */
export function estimateFliteWordTimings(text: string, segments: readonly FliteSegment[], timeScale = 1): WordTiming[] {
  const phrases = splitPhrases(text);
  const words = phrases.flat();
  if (words.length === 0) return [];
  const runs = speechRuns(segments);
  if (runs.length === 0) return [];

  const timings: WordTiming[] = [];
  if (runs.length === phrases.length) {
    phrases.forEach((phrase, i) => timings.push(...alignWords(phrase, runs[i]!)));
  } else {
    timings.push(...alignWords(words, runs.flat()));
  }
  return timings.map((t) => ({ word: t.word, start: round(t.start * timeScale), end: round(t.end * timeScale) }));
}

interface Phone {
  start: number;
  end: number;
}

/** Runs of consecutive non-pause segments, each phone with its start and end. */
function speechRuns(segments: readonly FliteSegment[]): Phone[][] {
  const runs: Phone[][] = [];
  let current: Phone[] = [];
  let previousEnd = 0;
  for (const seg of segments) {
    if (seg.phone === 'pau') {
      if (current.length) runs.push(current);
      current = [];
    } else {
      current.push({ start: previousEnd, end: seg.end });
    }
    previousEnd = seg.end;
  }
  if (current.length) runs.push(current);
  return runs;
}

const SPEAKABLE = /[\p{L}\p{N}&%$@+#=]/u;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}&%$@+#=]+|[^\p{L}\p{N}&%$@+#=]+$/gu;
/** Punctuation after which flite usually pauses (closing quotes/brackets may follow it). */
const PHRASE_END = /(?:[,.;:!?…]|[—–])["'”’)\]]*$/u;

/** Words as written (edge punctuation stripped), grouped into phrases ending at punctuation. */
export function splitPhrases(text: string): string[][] {
  const phrases: string[][] = [[]];
  for (const token of text.split(/\s+/)) {
    if (!token) continue;
    const word = token.replace(EDGE_PUNCTUATION, '');
    if (SPEAKABLE.test(token) && word) phrases[phrases.length - 1]!.push(word);
    if (PHRASE_END.test(token) && phrases[phrases.length - 1]!.length) phrases.push([]);
  }
  return phrases.filter((p) => p.length > 0);
}

/** Shares `phones` among `words` by estimated phone counts, keeping at least one phone per word when possible. */
function alignWords(words: readonly string[], phones: readonly Phone[]): WordTiming[] {
  const weights = words.map(estimatePhoneCount);
  const total = weights.reduce((a, b) => a + b, 0);
  const n = words.length;
  const p = phones.length;
  const bounds: number[] = [0];
  let cumulative = 0;
  for (let k = 1; k <= n; k++) {
    cumulative += weights[k - 1]!;
    let b = k === n ? p : Math.round((p * cumulative) / total);
    if (p >= n) b = Math.min(Math.max(b, bounds[k - 1]! + 1), p - (n - k));
    else b = Math.max(b, bounds[k - 1]!);
    bounds.push(b);
  }
  return words.map((word, k) => {
    const from = bounds[k]!;
    const to = bounds[k + 1]!;
    if (to > from) return { word, start: phones[from]!.start, end: phones[to - 1]!.end };
    const at = from < p ? phones[from]!.start : phones[p - 1]!.end;
    return { word, start: at, end: at };
  });
}

const DIGRAPHS = /th|sh|ch|ph|wh|ck|ng|gh|qu|ee|oo|ea|ai|ay|ou|ow|oa|ie|ei|([bcdfglmnprstz])\1/g;

/** A spelling-based guess of a word's phone count (English): letters minus digraphs and a silent final e. */
export function estimatePhoneCount(word: string): number {
  const w = word.toLowerCase();
  const digits = (w.match(/\p{N}/gu) ?? []).length;
  const letters = w.replace(/[^\p{L}]/gu, '');
  let count = letters.length - (letters.match(DIGRAPHS) ?? []).length;
  if (/[^aeiouy]e$/.test(letters) && letters.length > 3) count--;
  // A digit is read as a number word (about three phones); a symbol such as & or % as one word.
  count += digits * 3;
  if (count <= 0) count = /[&%$@+#=]/.test(w) ? 3 : 1;
  return count;
}

const round = (t: number): number => Math.round(t * 1000) / 1000;
