import type { PhonemizedWord } from '../models/espeak-ipa.js';
import { misakiEnglishPhonemes } from './misaki-english.js';

// Kokoro-82M was trained on misaki's phonemes, not on raw espeak-ng IPA. Where misaki falls back to
// espeak-ng (Spanish, French, Hindi, Italian, Brazilian Portuguese: misaki's EspeakG2P) it maps
// espeak's tied sounds to single symbols; for English, kokoro-js (the reference JavaScript
// implementation, on espeak-ng) applies its own replacements. Both keep the punctuation.

/** misaki EspeakG2P.E2M: a tied pair (one espeak phoneme, `t^s`) -> the symbol Kokoro was trained on. */
const ESPEAK_TO_MISAKI: readonly [string, string][] = [
  ['aɪ', 'I'],
  ['aʊ', 'W'],
  ['dz', 'ʣ'],
  ['dʒ', 'ʤ'],
  ['eɪ', 'A'],
  ['oʊ', 'O'],
  ['əʊ', 'Q'],
  ['ss', 'S'],
  ['ts', 'ʦ'],
  ['tʃ', 'ʧ'],
  ['ɔɪ', 'Y'],
];

/** kokoro-js's replacements on espeak-ng's English (its phonemize.js). */
const ENGLISH_REPLACEMENTS: readonly [RegExp, string][] = [
  [/kəkˈoːɹoʊ/g, 'kˈoʊkəɹoʊ'],
  [/kəkˈɔːɹəʊ/g, 'kˈəʊkəɹəʊ'],
  [/ʲ/g, 'j'],
  [/r/g, 'ɹ'],
  [/x/g, 'k'],
  [/ɬ/g, 'l'],
  [/(?<=[a-zɹː])(?=hˈʌndɹɪd)/g, ' '],
];
/** American English only (kokoro-js): "ninety" flaps. */
const AMERICAN_REPLACEMENTS: readonly [RegExp, string][] = [[/(?<=nˈaɪn)ti(?!ː)/g, 'di']];

/** The punctuation both keep (kokoro-js's PUNCTUATION; phonemizer's default marks for misaki). */
const KEPT_PUNCTUATION = new Set(';:,.!?¡¿—…"«»“”(){}[]');

/** Kokoro's language of a voice: the first letter of its name (`af_heart` -> `a`). */
export type KokoroLanguage = 'a' | 'b' | 'e' | 'f' | 'h' | 'i' | 'p';

/**
 * How English (a, b) is spelled for Kokoro: `kokoro-js` (default: the Kokoro authors' published
 * JavaScript path, espeak-ng IPA with its replacements, what kokoro-js users hear) or `misaki`
 * (misaki's espeak fallback: `aɪ` -> I, `eɪ` -> A, `oʊ` -> O, `dʒ` -> ʤ, `ɚ` -> əɹ, no ː in US
 * English; the symbols misaki gives, which the model was trained on). SVC_KOKORO_ENGLISH.
 */
export type KokoroEnglishG2P = 'kokoro-js' | 'misaki';
export const KOKORO_ENGLISH_G2P: readonly KokoroEnglishG2P[] = ['kokoro-js', 'misaki'];

/**
 * A word's Kokoro symbols: the text's punctuation before it (first word only), its phonemes as the
 * trainer spelled them, then what separates it from the next word. kokoro-js and misaki phonemize
 * the text between punctuation and keep the punctuation runs as written, spaces included
 * ("Hello, world" -> həlˈoʊ, wˈɜːld; "Then—no" -> ðˈɛn—nˈoʊ); words espeak spoke as one keep no
 * space between them, as espeak wrote them.
 */
export function kokoroWordSymbols(
  word: PhonemizedWord,
  language: KokoroLanguage,
  last = false,
  englishG2P: KokoroEnglishG2P = 'kokoro-js',
): string {
  const english = language === 'a' || language === 'b';
  const phonemes = !english
    ? misakiPhonemes(word.phonemes)
    : englishG2P === 'misaki'
      ? misakiEnglishPhonemes(word.phonemes, language === 'b')
      : englishPhonemes(word.phonemes, language === 'a');
  const after = word.joinedWithNext ? '' : separator(word.after, english, last);
  return punctuation(word.before, english).trimStart() + phonemes + after;
}

/** The punctuation after a word with the spaces around it (collapsed); a plain space when there is none; trimmed at the end. */
function separator(gap: string, english: boolean, last: boolean): string {
  const kept = punctuation(gap, english);
  const text = kept.replace(/[^\S]+/g, ' ');
  const spoken = /[^ ]/.test(text) ? text : ' ';
  return last ? spoken.trimEnd() : spoken;
}
function englishPhonemes(units: string[], american: boolean): string {
  let ps = units.join('');
  for (const [pattern, to] of ENGLISH_REPLACEMENTS) ps = ps.replace(pattern, to);
  if (american) for (const [pattern, to] of AMERICAN_REPLACEMENTS) ps = ps.replace(pattern, to);
  return ps;
}

/** Within one espeak phoneme only: two letters of different phonemes (a hiatus) are not tied, as in misaki. */
function misakiPhonemes(units: string[]): string {
  const mapped = units.map((unit) => ESPEAK_TO_MISAKI.reduce((u, [from, to]) => u.replaceAll(from, to), unit));
  // misaki deletes the remaining tie marks and espeak's hyphens.
  return mapped.join('').replace(/[\^-]/g, '');
}

/**
 * Punctuation (and the spaces around it) as the references pass it: kokoro-js (English) turns curly
 * quotes into `"` and parentheses into «»; misaki turns «» into curly quotes and keeps parentheses.
 */
function punctuation(marks: string, english: boolean): string {
  let kept = [...marks].filter((c) => KEPT_PUNCTUATION.has(c) || /\s/.test(c)).join('');
  if (english) kept = kept.replace(/«/g, '“').replace(/»/g, '”').replace(/[“”]/g, '"').replace(/\(/g, '«').replace(/\)/g, '»');
  else kept = kept.replace(/«/g, '“').replace(/»/g, '”');
  return kept;
}
