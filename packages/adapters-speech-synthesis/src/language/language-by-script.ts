/**
 * What a text's writing system alone says about its language. Most scripts are written by one
 * language espeak-ng speaks (Hangul, Greek, Hebrew, Thai...): no statistics needed, and none
 * would be more reliable on a short sentence. A few are shared, and the choice among their
 * languages is left to a detector with a prior for the most used one.
 */
export type ScriptVerdict =
  /** The script names the language. */
  | { kind: 'language'; language: string }
  /** One of `languages`, `preferred` unless a detector is confident otherwise. */
  | { kind: 'shared'; languages: readonly string[]; preferred: string }
  /** Latin script, or no letters at all: a detector decides (with the English prior). */
  | { kind: 'latin' }
  /** A script no espeak voice reads. */
  | { kind: 'unknown' };

/** Scripts that name one language. */
const SINGLE_LANGUAGE_SCRIPTS: readonly [RegExp, string][] = [
  [/\p{Script=Hangul}/u, 'ko'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Hebrew}/u, 'he'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Georgian}/u, 'ka'],
  [/\p{Script=Armenian}/u, 'hy'],
  [/\p{Script=Bengali}/u, 'bn'],
  [/\p{Script=Gurmukhi}/u, 'pa'],
  [/\p{Script=Gujarati}/u, 'gu'],
  [/\p{Script=Oriya}/u, 'or'],
  [/\p{Script=Tamil}/u, 'ta'],
  [/\p{Script=Telugu}/u, 'te'],
  [/\p{Script=Kannada}/u, 'kn'],
  [/\p{Script=Malayalam}/u, 'ml'],
  [/\p{Script=Sinhala}/u, 'si'],
  [/\p{Script=Myanmar}/u, 'my'],
  [/\p{Script=Ethiopic}/u, 'am'],
  [/\p{Script=Cherokee}/u, 'chr'],
];

/**
 * Letters that, checked in this order, leave one language of a shared script: facts, not guesses.
 * Russian never writes і, Ukrainian never ы, э or ё, and Belarusian writes both kinds (and ў);
 * Serbian and Macedonian alone have ј, љ, њ, џ (ђ and ћ Serbian, ѓ, ќ and ѕ Macedonian).
 */
const TELLTALE_LETTERS: readonly [RegExp, string][] = [
  [/[ґєї]/iu, 'uk'],
  [/ў/iu, 'be'],
  [/[ѓќѕ]/iu, 'mk'],
  [/[ђћјљњџ]/iu, 'sr'],
  [/[әғқңөұһ]/iu, 'kk'],
  [/^(?=.*і)(?=.*[ыэё])/isu, 'be'],
  [/і/iu, 'uk'],
  [/[ыэё]/iu, 'ru'],
  [/[ٹڈڑںے]/u, 'ur'],
  [/[پچژگکی]/u, 'fa'],
];

const CYRILLIC = { kind: 'shared', languages: ['ru', 'uk', 'bg', 'sr', 'be'], preferred: 'ru' } as const;
const ARABIC = { kind: 'shared', languages: ['ar', 'fa', 'ur'], preferred: 'ar' } as const;
const DEVANAGARI = { kind: 'shared', languages: ['hi', 'mr'], preferred: 'hi' } as const;

/** Every language the script alone, or its telltale letters, or its shared-script choice can name. */
export const SCRIPT_LANGUAGES: readonly string[] = [
  ...new Set([
    'ja',
    'zh',
    'ko',
    ...SINGLE_LANGUAGE_SCRIPTS.map(([, l]) => l),
    ...TELLTALE_LETTERS.map(([, l]) => l),
    ...[CYRILLIC, ARABIC, DEVANAGARI].flatMap((s) => s.languages),
  ]),
];

/**
 * A CJK character stands for a syllable or a word where a Latin letter is a sound: a Japanese
 * sentence quoting one English brand name is still Japanese.
 */
const CJK_WEIGHT = 3;

/** Letters of each script family, to find the one the text is mostly written in. */
function scriptCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (script: string, n: number) => counts.set(script, (counts.get(script) ?? 0) + n);
  for (const ch of text) {
    if (!/\p{L}/u.test(ch)) continue;
    if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(ch)) add('cjk', CJK_WEIGHT);
    else if (/\p{Script=Hangul}/u.test(ch)) add('hangul', CJK_WEIGHT);
    else if (/\p{Script=Latin}/u.test(ch)) add('latin', 1);
    else if (/\p{Script=Cyrillic}/u.test(ch)) add('cyrillic', 1);
    else if (/\p{Script=Arabic}/u.test(ch)) add('arabic', 1);
    else if (/\p{Script=Devanagari}/u.test(ch)) add('devanagari', 1);
    else add('other', 1);
  }
  return counts;
}

/** What the script the text is mostly written in says about its language. */
export function languageByScript(text: string): ScriptVerdict {
  const counts = scriptCounts(text);
  let dominant: string | null = null;
  for (const [script, n] of counts) if (dominant === null || n > counts.get(dominant)!) dominant = script;
  switch (dominant) {
    case null:
    case 'latin':
      return { kind: 'latin' };
    case 'cjk':
      // Japanese writes kana in every sentence; Chinese never does. Korean mixes Hanja with Hangul.
      if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return { kind: 'language', language: 'ja' };
      if (/\p{Script=Hangul}/u.test(text)) return { kind: 'language', language: 'ko' };
      return { kind: 'language', language: 'zh' };
    case 'cyrillic':
      return telltale(text) ?? CYRILLIC;
    case 'arabic':
      return telltale(text) ?? ARABIC;
    case 'devanagari':
      return DEVANAGARI;
    default: {
      const single = SINGLE_LANGUAGE_SCRIPTS.find(([script]) => script.test(text));
      return single ? { kind: 'language', language: single[1] } : { kind: 'unknown' };
    }
  }
}

function telltale(text: string): ScriptVerdict | null {
  const found = TELLTALE_LETTERS.find(([letters]) => letters.test(text));
  return found ? { kind: 'language', language: found[1] } : null;
}
