// How espeak-ng ended a clause, read back the way Piper does. espeak ends a clause at punctuation
// followed by a space (its readclause.c table of clause punctuation); piper-phonemize gets the
// clause type from espeak (espeak_TextToPhonemesWithTerminator), keeps its pause, intonation and
// type bits, and writes a phoneme only for the six types that match exactly. So a dash is a
// semicolon, while "…" (and "...", which espeak reads as "…") and the marks that need no space
// after them (CJK, Devanagari danda) carry espeak's "optional space" bit and write nothing.

/** The punctuation phoneme piper-phonemize writes after a clause; '' when it writes none. */
export type ClauseMark = '.' | ',' | '?' | '!' | ':' | ';' | '';

export interface ClauseEnd {
  mark: ClauseMark;
  /** espeak's clause type is a sentence end (piper-phonemize starts a new sentence after it). */
  sentence: boolean;
}

const PERIOD: ClauseEnd = { mark: '.', sentence: true };
const QUESTION: ClauseEnd = { mark: '?', sentence: true };
const EXCLAMATION: ClauseEnd = { mark: '!', sentence: true };
const COMMA: ClauseEnd = { mark: ',', sentence: false };
const COLON: ClauseEnd = { mark: ':', sentence: false };
const SEMICOLON: ClauseEnd = { mark: ';', sentence: false };
/** A clause espeak ended with a mark Piper writes nothing for. */
const UNMARKED_CLAUSE: ClauseEnd = { mark: '', sentence: false };
const UNMARKED_SENTENCE: ClauseEnd = { mark: '', sentence: true };

/** espeak-ng's clause punctuation (readclause.c punct_chars / punct_attributes) as piper-phonemize reads it. */
const CLAUSE_PUNCTUATION = new Map<string, ClauseEnd>([
  [',', COMMA],
  ['.', PERIOD],
  ['?', QUESTION],
  ['!', EXCLAMATION],
  [':', COLON],
  [';', SEMICOLON],
  ['\u2013', SEMICOLON], // en dash
  ['\u2014', SEMICOLON], // em dash
  ['\u2026', UNMARKED_CLAUSE], // ellipsis: semicolon + "optional space after"
  ['\u00a1', UNMARKED_CLAUSE], // ¡
  ['\u00bf', UNMARKED_CLAUSE], // ¿
  ['\u037e', QUESTION], // Greek question mark
  ['\u0387', SEMICOLON], // Greek ano teleia
  ['\u055d', COMMA], // Armenian comma
  ['\u060c', COMMA], // Arabic comma
  ['\u061b', SEMICOLON], // Arabic semicolon
  ['\u061f', QUESTION], // Arabic question mark
  ['\u06d4', PERIOD], // Arabic full stop
  ['\u0964', UNMARKED_SENTENCE], // Devanagari danda
  ['\u0589', UNMARKED_SENTENCE], // Armenian full stop
  ['\u3001', UNMARKED_CLAUSE], // ideographic comma
  ['\u3002', UNMARKED_SENTENCE], // ideographic full stop
  ['\uff01', UNMARKED_SENTENCE], // fullwidth !
  ['\uff0c', UNMARKED_CLAUSE], // fullwidth ,
  ['\uff0e', UNMARKED_SENTENCE], // fullwidth .
  ['\uff1a', UNMARKED_CLAUSE], // fullwidth :
  ['\uff1b', UNMARKED_CLAUSE], // fullwidth ;
  ['\uff1f', UNMARKED_SENTENCE], // fullwidth ?
]);

/**
 * The end of a clause espeak ended after a word, from the text between that word and the next
 * (`gap`): its first clause punctuation decides, three dots or more are one "…" and a run of ?
 * and ! counts as its first mark (both as espeak reads them). No punctuation (espeak split a long
 * clause, or the text ends without any) writes nothing; `last` says it is the end of the text.
 */
export function clauseEndOf(gap: string, last: boolean): ClauseEnd {
  const cps = [...gap];
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === '.' && cps[i + 1] === '.' && cps[i + 2] === '.') return UNMARKED_CLAUSE;
    const end = CLAUSE_PUNCTUATION.get(c);
    if (end) return end;
  }
  return last ? UNMARKED_SENTENCE : UNMARKED_CLAUSE;
}
