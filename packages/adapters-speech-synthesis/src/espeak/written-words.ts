// The words of a text as the caller wrote them, and how espeak-ng's own words fall onto them.
// espeak joins words ("was a" -> wʌzɐ, "tout le monde" -> tulmɔ̃d: one word event, one phoneme word)
// and splits others ("23" -> twenty three: two events), and its text positions can land on the
// punctuation before a word. Every engine that reports word timings or feeds a model word by word
// pairs its words with the text here, by espeak's text positions, never by counting.

/** A written word: a space-separated token (dashes also separate), with at least one letter or digit. */
export interface WrittenWord {
  /** The token as written, its punctuation included. */
  text: string;
  /** Code point range [start, end) of the token in the text. */
  start: number;
  end: number;
  /** Code point range [first, last) of its letters and digits (its punctuation outside). */
  first: number;
  last: number;
  /** How many letters and digits it has: its share when espeak spoke it joined with others. */
  letters: number;
}

const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u;
/** Dashes separate words even without spaces ("Then—no"). */
const SEPARATOR = /[\s\u2013\u2014]/u;

export function writtenWords(text: string): WrittenWord[] {
  const cps = [...text];
  const words: WrittenWord[] = [];
  let i = 0;
  while (i < cps.length) {
    if (SEPARATOR.test(cps[i]!)) {
      i++;
      continue;
    }
    const start = i;
    while (i < cps.length && !SEPARATOR.test(cps[i]!)) i++;
    let first = -1;
    let last = -1;
    let letters = 0;
    for (let k = start; k < i; k++) {
      if (!WORD_CHARACTER.test(cps[k]!)) continue;
      if (first < 0) first = k;
      last = k + 1;
      letters++;
    }
    if (letters > 0) words.push({ text: cps.slice(start, i).join(''), start, end: i, first, last, letters });
  }
  return words;
}

/**
 * For each espeak word (its 0-based code point position in the text), the index of the written
 * word it belongs to: the one containing the position, else the next one (espeak's position fell
 * on the punctuation or space before it), never going back (espeak's words are in text order).
 * espeak's positions also lag after the word pairs its dictionary reads as one ("in a", "to be"):
 * the next word is reported one character after the pair's start ("sat in a row": "row" inside
 * "in"). Only a written word with digits or symbols ("23", "$5", "7:45") is read as several espeak
 * words; a second espeak word in a word of letters is such a lag, and is moved onto the last
 * written word before the next espeak word's that none has yet (the words between are the pair's).
 */
export function anchorEspeakWords(words: readonly WrittenWord[], positions: readonly number[]): number[] {
  const anchors: number[] = [];
  let at = 0;
  for (const position of positions) {
    while (at < words.length - 1 && words[at]!.end <= position) at++;
    anchors.push(at);
  }
  for (let k = 1; k < anchors.length; k++) {
    const anchor = anchors[k]!;
    if (anchors[k - 1] !== anchor || !LETTERS_ONLY.test(words[anchor]!.text)) continue;
    const bound = anchors[k + 1] ?? words.length;
    if (bound - 1 > anchor) anchors[k] = bound - 1;
  }
  return anchors;
}

/** A word espeak reads as one word: letters, with apostrophes, hyphens and dots inside, quotes and marks around. */
const LETTERS_ONLY = /^[^\p{L}\p{N}]*[\p{L}\p{M}]+(?:[-'’.][\p{L}\p{M}]+)*[^\p{L}\p{N}]*$/u;

/** One written word's share of espeak's words. */
export interface WordShare<T> {
  /** Its units (phonemes, phoneme times) in order; empty when espeak spoke nothing for it. */
  units: T[];
  /** espeak spoke it and the next written word as one word (no word boundary between them). */
  joinedWithNext: boolean;
}

/**
 * Gives each written word its units from espeak's words (`units[k]` are espeak word k's): the units
 * of every espeak word anchored to it, in order; written words no espeak word is anchored to were
 * joined to the espeak word before them, whose units are split among them in proportion to
 * `weightOf` (by default their letters; the phonemizer weighs each by its phonemes said alone).
 */
export function shareEspeakWords<T>(
  words: readonly WrittenWord[],
  anchors: readonly number[],
  units: readonly T[][],
  weightOf: (word: WrittenWord) => number = (w) => w.letters,
): WordShare<T>[] {
  const shares: WordShare<T>[] = words.map(() => ({ units: [], joinedWithNext: false }));
  anchors.forEach((anchor, k) => {
    const next = anchors[k + 1];
    // The last espeak word anchored to a written word also speaks the unanchored words after it.
    const last = next === undefined ? words.length : Math.max(anchor + 1, next);
    const group = next === anchor ? 1 : last - anchor;
    const own = units[k] ?? [];
    if (group === 1) {
      shares[anchor]!.units.push(...own);
      return;
    }
    const starts = [
      0,
      ...splitByLetters(
        words.slice(anchor, anchor + group).map((w) => Math.max(1, weightOf(w))),
        own.length,
      ),
      own.length,
    ];
    for (let i = 0; i < group; i++) {
      shares[anchor + i]!.units.push(...own.slice(starts[i], starts[i + 1]));
      if (i < group - 1) shares[anchor + i]!.joinedWithNext = true;
    }
  });
  return shares;
}

/**
 * Splits `units` phonemes among words joined into one espeak word, in proportion to their weights
 * (letters, or phonemes said alone) and at phoneme boundaries: the index where each word after the first starts. Every word keeps
 * at least one phoneme while there are enough.
 */
export function splitByLetters(letters: readonly number[], units: number): number[] {
  const total = letters.reduce((a, b) => a + b, 0);
  const starts: number[] = [];
  let before = 0;
  for (let i = 1; i < letters.length; i++) {
    before += letters[i - 1]!;
    const previous = starts[starts.length - 1] ?? 0;
    const ideal = Math.round((before / total) * units);
    const latest = units - (letters.length - i); // leave one phoneme for each word still to come
    starts.push(Math.max(Math.min(previous + 1, latest), Math.min(ideal, latest)));
  }
  return starts;
}
