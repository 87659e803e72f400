import { keepSentencePeriod } from './sentence-end.js';

interface Abbreviation {
  pattern: RegExp;
  /** Spoken form; may depend on what follows (St. = Saint before a name, Street otherwise). */
  expand: (following: string) => string;
  /** Titles always precede a name, so their period never ends a sentence. */
  canEndSentence: boolean | ((spoken: string) => boolean);
}

const fixed = (words: string) => () => words;
// `(?!\p{L})` after the period-less forms keeps "Mrs" from matching inside "Mrsomething".
const word = (source: string, flags = 'u') => new RegExp(`(?<![\\p{L}\\p{N}.])${source}`, `g${flags}`);

const ABBREVIATIONS: Abbreviation[] = [
  { pattern: word('Mrs\\.?(?=\\s)'), expand: fixed('Missus'), canEndSentence: false },
  { pattern: word('Mr\\.?(?=\\s)'), expand: fixed('Mister'), canEndSentence: false },
  { pattern: word('Ms\\.?(?=\\s)'), expand: fixed('Miz'), canEndSentence: false },
  { pattern: word('Dr\\.(?=\\s)'), expand: fixed('Doctor'), canEndSentence: false },
  { pattern: word('Prof\\.(?=\\s)'), expand: fixed('Professor'), canEndSentence: false },
  { pattern: word('Mt\\.(?=\\s)'), expand: fixed('Mount'), canEndSentence: false },
  {
    pattern: word('St\\.(?=\\s|$)'),
    expand: (following) =>
      /^\s+\p{Lu}\p{Ll}/u.test(following) && !/^\s+(?:The|A|An|In|It|We|He|She|They|I)\b/.test(following) ? 'Saint' : 'Street',
    canEndSentence: (spoken) => spoken === 'Street',
  },
  { pattern: word('Jr\\.'), expand: fixed('Junior'), canEndSentence: true },
  { pattern: word('Sr\\.'), expand: fixed('Senior'), canEndSentence: true },
  { pattern: word('Ave\\.'), expand: fixed('Avenue'), canEndSentence: true },
  { pattern: word('Blvd\\.'), expand: fixed('Boulevard'), canEndSentence: true },
  { pattern: word('Inc\\.'), expand: fixed('Incorporated'), canEndSentence: true },
  { pattern: word('Ltd\\.'), expand: fixed('Limited'), canEndSentence: true },
  { pattern: word('Corp\\.'), expand: fixed('Corporation'), canEndSentence: true },
  { pattern: word('Dept\\.'), expand: fixed('Department'), canEndSentence: true },
  { pattern: word('approx\\.', 'iu'), expand: fixed('approximately'), canEndSentence: false },
  { pattern: word('e\\.\\s?g\\.', 'iu'), expand: fixed('for example'), canEndSentence: false },
  { pattern: word('i\\.\\s?e\\.', 'iu'), expand: fixed('that is'), canEndSentence: false },
  { pattern: word('etc\\.', 'iu'), expand: fixed('et cetera'), canEndSentence: true },
  { pattern: word('vs\\.?(?!\\p{L})', 'iu'), expand: fixed('versus'), canEndSentence: false },
  { pattern: word('No\\.(?=\\s*#?\\d)', 'iu'), expand: fixed('number'), canEndSentence: false },
  { pattern: word('Fig\\.(?=\\s*\\d)', 'iu'), expand: fixed('figure'), canEndSentence: false },
  { pattern: word('Vol\\.(?=\\s*\\d)', 'iu'), expand: fixed('volume'), canEndSentence: false },
  // "#1" must become words before the number does, or the "#" loses its digit.
  { pattern: word('#(?=\\s?\\d)'), expand: fixed('number '), canEndSentence: false },
];

/** "U.S.A." -> "U S A": letters a synthesizer spells out, without periods that look like sentence ends. */
const DOTTED_INITIALISM = /(?<![\p{L}\p{N}.])(?:\p{Lu}\.){2,}/gu;

export function expandEnglishAbbreviations(text: string): string {
  let out = text;
  for (const abbreviation of ABBREVIATIONS) {
    out = out.replace(abbreviation.pattern, (matched: string, ...rest: unknown[]) => {
      const offset = rest[rest.length - 2] as number;
      const whole = rest[rest.length - 1] as string;
      const following = whole.slice(offset + matched.length);
      const spoken = abbreviation.expand(following);
      const canEnd = typeof abbreviation.canEndSentence === 'function' ? abbreviation.canEndSentence(spoken) : abbreviation.canEndSentence;
      return canEnd ? keepSentencePeriod(spoken, matched, following) : spoken;
    });
  }
  return out.replace(DOTTED_INITIALISM, (matched: string, offset: number, whole: string) => {
    const letters = matched.replace(/\./g, ' ').trim();
    return keepSentencePeriod(letters, matched, whole.slice(offset + matched.length));
  });
}
