/**
 * What listeners say to show they are listening, not to take the turn: these words never count
 * towards `min_interruption_words`. One list per language (ISO-639-1), written as the recognizer
 * spells them, lower case, hyphens and apostrophes removed ("mm-hmm" -> "mmhmm"); a phrase is
 * its words ("all right" -> "all", "right"). A session whose transcription language is unset uses
 * every list. To extend: add words here (docs/realtime.md lists them).
 */
export const BACKCHANNELS: Readonly<Record<string, readonly string[]>> = {
  en: [
    'mmhmm',
    'mhm',
    'uhhuh',
    'uhuh',
    'yeah',
    'yea',
    'yep',
    'yes',
    'yup',
    'right',
    'okay',
    'ok',
    'alright',
    'all',
    'sure',
    'true',
    'got',
    'it',
    'i',
    'see',
    'really',
    'wow',
    'cool',
    'nice',
    'exactly',
    'indeed',
    'totally',
    'huh',
    'oh',
    'ah',
    'aha',
    'hmm',
    'mm',
    'um',
    'uh',
    'er',
    'erm',
    'so',
    'well',
    'great',
    'good',
    'fine',
    // What listeners also say while they listen ("of course": "of" is a filler word below).
    'gotcha',
    'absolutely',
    'definitely',
    'perfect',
    'awesome',
    'interesting',
    'course',
  ],
  fr: [
    'oui',
    'ouais',
    'daccord',
    'ok',
    'okay',
    'dac',
    'voilà',
    'voila',
    'ah',
    'oh',
    'bon',
    'bien',
    'sûr',
    'sur',
    'exactement',
    'hum',
    'mm',
    'euh',
    'ben',
    'vrai',
    'cest',
    'ça',
    'ca',
    'marche',
  ],
  de: [
    'ja',
    'jaja',
    'genau',
    'okay',
    'ok',
    'stimmt',
    'richtig',
    'klar',
    'achso',
    'ach',
    'so',
    'aha',
    'hm',
    'mhm',
    'mm',
    'äh',
    'ähm',
    'gut',
    'super',
    'echt',
  ],
  es: ['sí', 'si', 'vale', 'claro', 'ya', 'bueno', 'okay', 'ok', 'exacto', 'ajá', 'aja', 'eh', 'mm', 'mhm', 'cierto', 'bien', 'ah'],
  it: ['sì', 'si', 'certo', 'giusto', 'okay', 'ok', 'esatto', 'già', 'gia', 'va', 'bene', 'ah', 'eh', 'mm', 'mhm', 'vero'],
  nl: ['ja', 'jaja', 'oké', 'oke', 'okay', 'ok', 'precies', 'klopt', 'goed', 'hm', 'mhm', 'mm', 'uh', 'nou', 'zeker'],
  pt: ['sim', 'é', 'e', 'tá', 'ta', 'certo', 'claro', 'okay', 'ok', 'exato', 'ah', 'hum', 'mm', 'mhm', 'pois'],
};

/** Hesitations and letters a recognizer makes of hums and coughs ("on m h and m"): never words. */
const NOT_WORDS = /^(?:[a-z]|h+m+|m+h*m*|u+h+|u+m+|e+r+m*|a+h+|o+h+)$/;

/**
 * The short function words an English recognizer fills a hum with ("mm-hmm" -> "and and may",
 * "uh-huh" -> "but but", "the militia ma'am"): they carry no request on their own, so they never
 * count. A real interruption has words besides them ("no wait", "stop", "hold on" -> "hold").
 */
const FILLER_WORDS = new Set([
  'a',
  'an',
  'the',
  'and',
  'but',
  'or',
  'nor',
  'of',
  'on',
  'in',
  'at',
  'to',
  'by',
  'for',
  'from',
  'with',
  'as',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'am',
  'may',
  'might',
  'he',
  'she',
  'his',
  'her',
  'him',
  'they',
  'them',
  'their',
  'we',
  'us',
  'you',
  'me',
  'my',
  'that',
  'this',
  'then',
  'than',
  'there',
  'had',
  'has',
  'have',
  'do',
  'did',
  'if',
  'when',
  'what',
  'who',
  'how',
  'its',
  'into',
  'up',
  'out',
  'ma',
  'maam',
  'hm',
  'huh',
]);

const ALL_LANGUAGES = new Set(Object.values(BACKCHANNELS).flat());
const BY_LANGUAGE = new Map(Object.entries(BACKCHANNELS).map(([lang, words]) => [lang, new Set(words)]));

/** The backchannel words of a language (every list for an unknown or unset one). */
export function backchannelsOf(language: string | null): ReadonlySet<string> {
  const code = language?.toLowerCase().split(/[-_]/)[0] ?? '';
  return BY_LANGUAGE.get(code) ?? ALL_LANGUAGES;
}

/** Words of a partial transcript that say something: distinct, not backchannels, fillers, hums or letters. */
export function substantiveWords(partial: string, backchannels: ReadonlySet<string>): string[] {
  const words = new Set<string>();
  for (const raw of partial.toLowerCase().split(/\s+/)) {
    const word = raw.replace(/[-'’.,!?;:"()]/g, '');
    if (word === '' || NOT_WORDS.test(word) || FILLER_WORDS.has(word) || backchannels.has(word)) continue;
    words.add(word);
  }
  return [...words];
}
