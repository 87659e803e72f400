/**
 * Cuts text into the units the synthesizer speaks one at a time. Sentences are the natural unit
 * (intonation resets there); an over-long sentence is cut further at clause punctuation, then at
 * spaces, so that no chunk exceeds `maxChars` and the first audio of a long text starts soon.
 */

const DEFAULT_MAX_CHARS = 300;

/** Words whose period is part of the word: titles and references that a name or number follows. */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'mt',
  'jr',
  'sr',
  'vs',
  'no',
  'nos',
  'fig',
  'figs',
  'vol',
  'approx',
  'cf',
  'gen',
  'col',
  'capt',
  'lt',
  'sgt',
  'rev',
  'hon',
  'gov',
  'sen',
  'rep',
  'ca',
  'p',
  'pp',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

const WESTERN_END = /[.!?…]/;
const CJK_END = /[。！？｡]/;
const CLOSERS = /["'”’»」』)\]}]/;
const OPENING_QUOTES = /[“«„「『]/;
const CLOSING_QUOTES = /[”»」』]/;
/** Clause punctuation where a long sentence may be cut (Latin and CJK). */
const CLAUSE_BREAK = /(?<=[,;:，、；：])/;

/** The letters-and-dots word right before position `end` ("Mr", "U.S", "e.g"). */
function wordBefore(text: string, end: number): string {
  let start = end;
  while (start > 0 && /[\p{L}.]/u.test(text[start - 1]!)) start--;
  return text.slice(start, end);
}

function isAbbreviation(word: string): boolean {
  if (ABBREVIATIONS.has(word.toLowerCase())) return true;
  // Dotted initialisms ("U.S", "e.g", "a.m") and single initials ("J. K. Rowling").
  return /^(?:\p{L}\.)+\p{L}$/u.test(word) || /^\p{Lu}$/u.test(word);
}

/** Splits one line (no newlines) into sentences. */
function sentencesOfLine(line: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  let quoteDepth = 0;
  const trackQuote = (i: number) => {
    const ch = line[i]!;
    if (OPENING_QUOTES.test(ch)) quoteDepth++;
    else if (CLOSING_QUOTES.test(ch)) quoteDepth = Math.max(0, quoteDepth - 1);
    else if (ch === '"') {
      const opens = i === 0 || /[\s(\[{]/.test(line[i - 1]!);
      quoteDepth = opens ? quoteDepth + 1 : Math.max(0, quoteDepth - 1);
    }
  };

  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    const cjk = CJK_END.test(ch);
    if (!cjk && !WESTERN_END.test(ch)) {
      trackQuote(i);
      continue;
    }
    let runEnd = i;
    while (runEnd < line.length && (WESTERN_END.test(line[runEnd]!) || CJK_END.test(line[runEnd]!))) runEnd++;
    const run = line.slice(i, runEnd);
    let end = runEnd;
    while (end < line.length && CLOSERS.test(line[end]!)) trackQuote(end++);
    i = end - 1;

    // Western punctuation needs a space after it, which keeps "3.14", "e.g." and "U.S.A" whole.
    if (!cjk && end < line.length && !/\s/.test(line[end]!)) continue;
    const next = line.slice(end).trimStart().charAt(0);
    if (!cjk && next !== '') {
      if (/^\p{Ll}/u.test(next)) continue;
      if (run === '.' && isAbbreviation(wordBefore(line, runEnd - 1))) continue;
      // A trailing-off inside a quotation that is still open is a hesitation, not a sentence end.
      const ellipsis = run.includes('…') || run.includes('..');
      if (ellipsis && quoteDepth > 0) continue;
    }
    sentences.push(line.slice(start, end));
    start = end;
  }
  sentences.push(line.slice(start));
  return sentences.map((s) => s.trim()).filter((s) => s !== '');
}

/** Cuts `text` at zero-width boundaries, so joining the pieces restores it exactly. */
function piecesAfter(text: string, boundary: RegExp): string[] {
  return text.split(boundary).filter((p) => p !== '');
}

/** Cuts a single unbreakable word into slices of at most `max` UTF-16 units, never inside a surrogate pair. */
function hardCut(word: string, max: number): string[] {
  const slices: string[] = [];
  let rest = word;
  while (rest.length > max) {
    let cut = max;
    const code = rest.charCodeAt(cut - 1);
    if (cut > 1 && code >= 0xd800 && code <= 0xdbff) cut--;
    slices.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest !== '') slices.push(rest);
  return slices;
}

/** Greedily packs pieces into chunks of at most `max` characters (trimmed); oversize pieces go to `split`. */
function pack(pieces: string[], max: number, split: (piece: string) => string[]): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if ((current + piece).trim().length <= max) {
      current += piece;
      continue;
    }
    if (current.trim() !== '') chunks.push(current.trim());
    current = '';
    if (piece.trim().length <= max) {
      current = piece;
    } else {
      const parts = split(piece);
      chunks.push(...parts.slice(0, -1));
      // Keep the piece's trailing space so the next piece does not glue onto the last part.
      current = (parts[parts.length - 1] ?? '') + piece.slice(piece.trimEnd().length);
    }
  }
  if (current.trim() !== '') chunks.push(current.trim());
  return chunks;
}

function splitAtSpaces(text: string, max: number): string[] {
  return pack(piecesAfter(text, /(?<=\s)(?=\S)/), max, (word) => hardCut(word.trim(), max));
}

function splitLongSentence(sentence: string, max: number): string[] {
  if (sentence.length <= max) return [sentence];
  return pack(piecesAfter(sentence, CLAUSE_BREAK), max, (clause) => splitAtSpaces(clause.trim(), max));
}

/** A chunk of only punctuation ("…", "—") has nothing to say; it rides along with the previous one. */
function attachSilentChunks(chunks: string[], max: number): string[] {
  const out: string[] = [];
  for (const chunk of chunks) {
    const previous = out[out.length - 1];
    if (!/[\p{L}\p{N}]/u.test(chunk) && previous !== undefined && previous.length + 1 + chunk.length <= max) {
      out[out.length - 1] = `${previous} ${chunk}`;
    } else {
      out.push(chunk);
    }
  }
  return out;
}

/**
 * Sentences of `text` in order, trimmed and non-empty, each at most `maxChars` UTF-16 units.
 * Breaks at . ! ? … (followed by a space), at CJK 。！？ and at newlines; not after abbreviations
 * (Mr., Dr., e.g., U.S.), inside numbers (3.14), before a lower-case word, or at an ellipsis
 * inside quotation marks.
 */
export function splitSentences(text: string, maxChars: number = DEFAULT_MAX_CHARS): string[] {
  if (!Number.isFinite(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be at least 1, got ${maxChars}`);
  const max = Math.floor(maxChars);
  const chunks = text
    .split(/\r?\n|\r|\u2028|\u2029/)
    .flatMap(sentencesOfLine)
    .flatMap((sentence) => splitLongSentence(sentence, max));
  return attachSilentChunks(chunks, max);
}
