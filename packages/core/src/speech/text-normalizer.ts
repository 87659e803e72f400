import { normalizeEnglish } from './normalization/english.js';
import { languageRegion, primaryLanguage } from './normalization/language-tag.js';
import { normalizeWithNumberLanguage } from './normalization/localized.js';
import type { NumberLanguage } from './normalization/number-language.js';
import { GERMAN } from './normalization/numbers-de.js';
import { SPANISH } from './normalization/numbers-es.js';
import { FRENCH } from './normalization/numbers-fr.js';
import { ITALIAN } from './normalization/numbers-it.js';
import { portugueseLanguage } from './normalization/numbers-pt.js';

const EUROPEAN_PORTUGUESE = portugueseLanguage('pt');
const BRAZILIAN_PORTUGUESE = portugueseLanguage('br');

function numberLanguageFor(tag: string): NumberLanguage | null {
  switch (primaryLanguage(tag)) {
    case 'fr':
      return FRENCH;
    case 'es':
      return SPANISH;
    case 'de':
      return GERMAN;
    case 'it':
      return ITALIAN;
    case 'pt':
      // Brazil has most speakers, so a bare "pt" reads the Brazilian way.
      return languageRegion(tag) === 'pt' ? EUROPEAN_PORTUGUESE : BRAZILIAN_PORTUGUESE;
    default:
      return null;
  }
}

/**
 * Rewrites text the way it is read aloud: numbers, dates, times, money, units, abbreviations and
 * symbols become words, so the synthesizer never guesses. `language` is an ISO 639-1 code or a
 * BCP-47 tag ("en", "en-us", "pt-BR"). English is covered in depth; French, Spanish, German,
 * Italian and Portuguese get numbers, decimals, percentages, money and clock times. Any other
 * language is returned unchanged: its digits are left for the synthesizer, which reads them itself.
 */
export function normalizeText(text: string, language: string): string {
  if (primaryLanguage(language) === 'en') return normalizeEnglish(text);
  const numberLanguage = numberLanguageFor(language);
  return numberLanguage ? normalizeWithNumberLanguage(text, numberLanguage) : text;
}
