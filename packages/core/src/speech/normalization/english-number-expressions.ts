import {
  ENGLISH_DIGITS,
  englishCardinal,
  englishDecimal,
  englishOrdinal,
  englishYear,
  ordinalOfWords,
  pluralOfWords,
} from './english-numbers.js';
import { removeSeparators, spellDigits } from './digits.js';

/** Words after which a four-digit number is a year ("in 1999", "since 2005", "March 2024"). */
const YEAR_CONTEXT =
  '(?:in|since|by|from|until|till|through|of|during|circa|ca\\.|year|before|after|around|early|late|mid|spring|summer|autumn|fall|winter|' +
  'born|died|founded|established|built|released|published|' +
  'January|February|March|April|May|June|July|August|September|October|November|December)';

function isPlausibleYear(digits: string): boolean {
  const year = Number(digits);
  return year >= 1000 && year <= 2099;
}

/** "1990s" -> "nineteen nineties", "'80s" / "80s" -> "eighties", "2000s" -> "two thousands". */
export function expandDecades(text: string): string {
  return text
    .replace(/(?<![\p{L}\p{N}.,])(1\d|20)(\d0)['’]?s(?![\p{L}\p{N}])/gu, (_m, century: string, decade: string) =>
      pluralOfWords(englishYear(Number(century + decade))),
    )
    .replace(/(?:['’]|(?<![\p{L}\p{N}.,]))([2-9]0)['’]?s(?![\p{L}\p{N}])/gu, (_m, decade: string) =>
      pluralOfWords(englishCardinal(decade)),
    );
}

/** Years after a context word, year ranges ("1999-2005" -> "... to ...") and "1066 AD". */
export function expandYears(text: string): string {
  return text
    .replace(/(?<![\p{N}.,])(\d{4})\s?[-–—]\s?(\d{4})(?![\p{N}])/gu, (matched, from: string, to: string) =>
      isPlausibleYear(from) && isPlausibleYear(to) && Number(to) > Number(from)
        ? `${englishYear(Number(from))} to ${englishYear(Number(to))}`
        : matched,
    )
    .replace(
      new RegExp(`(?<![\\p{L}])(${YEAR_CONTEXT})(\\s+)(\\d{4})(?![\\p{N}]|[.,]\\d)`, 'giu'),
      (matched, word: string, space: string, year: string) =>
        isPlausibleYear(year) ? `${word}${space}${englishYear(Number(year))}` : matched,
    )
    .replace(/(?<![\p{N}.,])(\d{1,4})\s?(AD|BC|BCE|CE|A\.D\.|B\.C\.)(?![\p{L}])/gu, (_m, year: string, era: string) => {
      const spokenEra = era.replace(/\./g, '').split('').join(' ');
      return `${Number(year) >= 1000 ? englishYear(Number(year)) : englishCardinal(year)} ${spokenEra}`;
    });
}

/** "1st" -> "first", "22nd" -> "twenty-second", "103rd" -> "one hundred third". */
export function expandOrdinals(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}.,])(\d{1,3}(?:,\d{3})+|\d+)(st|nd|rd|th)(?![\p{L}\p{N}])/giu, (_m, digits: string) =>
    englishOrdinal(removeSeparators(digits)),
  );
}

const DENOMINATORS: Record<number, [string, string]> = { 2: ['half', 'halves'], 4: ['quarter', 'quarters'] };

/** Simple fractions: "1/2" -> "one half", "3/4" -> "three quarters", "2/3" -> "two thirds". */
export function expandFractions(text: string): string {
  return text.replace(/(?<![\p{N}/.,])(\d{1,2})\/(\d{1,2})(?![\p{N}/]|[.,]\d)/gu, (matched, top: string, bottom: string) => {
    const [numerator, denominator] = [Number(top), Number(bottom)];
    if (numerator === 24 && denominator === 7) return 'twenty-four seven';
    if (denominator < 2 || denominator > 16 || numerator < 1 || numerator > 20) return matched;
    const [singular, plural] = DENOMINATORS[denominator] ?? [
      ordinalOfWords(englishCardinal(denominator)),
      `${ordinalOfWords(englishCardinal(denominator))}s`,
    ];
    return `${englishCardinal(numerator)} ${numerator === 1 ? singular : plural}`;
  });
}

/** Surrounds a spoken number with spaces where it touched letters ("3D" -> "three D"). */
function detached(words: string, before: string, after: string): string {
  const lead = /[\p{L}]/u.test(before) ? ' ' : '';
  const trail = /[\p{L}]/u.test(after) ? ' ' : '';
  return `${lead}${words}${trail}`;
}

/** A "-" is a minus sign only where a number starts on its own, not in "3-5" or "COVID-19". */
function isMinusSign(before: string): boolean {
  return before === '' || /[\s(\[{"'“‘=:/]/u.test(before);
}

/**
 * Every remaining number: versions "2.0.1" (each part a cardinal, joined by "point"),
 * decimals "3.14" and ".5", negatives "-7", grouped "1,234,567", and long digit strings or
 * numbers with leading zeros ("007", phone-like IDs), which are read digit by digit.
 */
export function expandCardinals(text: string): string {
  return text
    .replace(/(?<![\p{N}.])\d+(?:\.\d+){2,}(?![\p{N}]|\.\d)/gu, (matched, offset: number, whole: string) =>
      detached(
        matched
          .split('.')
          .map((part) => englishCardinal(part))
          .join(' point '),
        whole[offset - 1] ?? '',
        whole[offset + matched.length] ?? '',
      ),
    )
    .replace(/(?<![\p{N}\p{L}.])\.(\d+)(?![\p{N}])/gu, (_m, fraction: string) => englishDecimal('', fraction))
    .replace(
      /([-−](?=\d))?(?<![\p{N}])(\d{1,3}(?:,\d{3})+(?![\p{N}]|,\d)|\d+)(?:\.(\d+))?(?![\p{N}])/gu,
      (matched: string, minus: string | undefined, integer: string, fraction: string | undefined, offset: number, whole: string) => {
        const before = whole[offset - 1] ?? '';
        const after = whole[offset + matched.length] ?? '';
        const negative = minus !== undefined && isMinusSign(before);
        const digits = removeSeparators(integer);
        let words: string;
        if (fraction !== undefined) words = englishDecimal(digits, fraction);
        else if ((digits.length > 1 && digits.startsWith('0') && !integer.includes(',')) || digits.length > 15)
          words = spellDigits(digits, ENGLISH_DIGITS);
        else words = englishCardinal(digits);
        if (minus !== undefined && !negative) return `${minus}${detached(words, minus, after)}`;
        return detached(`${negative ? 'minus ' : ''}${words}`, before, after);
      },
    );
}

/** "50%" -> "fifty percent", "-2.5 %" -> "minus two point five percent". */
export function expandPercentages(text: string): string {
  return text.replace(
    /((?<![\p{L}\p{N}])[-−])?(?<![\p{N}.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s?%/gu,
    (_m, minus: string | undefined, integer: string, fraction: string | undefined) => {
      const digits = removeSeparators(integer);
      const number = fraction === undefined ? englishCardinal(digits) : englishDecimal(digits, fraction);
      return `${minus ? 'minus ' : ''}${number} percent`;
    },
  );
}
