import { removeSeparators, spellDigits } from './digits.js';
import type { CurrencyWords, NumberLanguage } from './number-language.js';
import { tidyWhitespace } from './whitespace.js';
import { UNIT_SYMBOLS } from './unit-words.js';

/**
 * Number shapes in languages that write "1.234.567,89" or "1 234 567,89". A dot followed by
 * exactly three digits groups thousands; a comma, or a dot followed by one, two or four+ digits,
 * is the decimal separator ("3.14" from an English-typed text still reads as a decimal).
 */
const INTEGER = '(\\d{1,3}(?:[.\\u00a0\\u202f ]\\d{3})+(?![\\p{N}])|\\d+)';
const FRACTION = '(?:[,.](\\d+))?';
const MONEY_FRACTION = '(?:[,.](\\d{1,2})(?![\\p{N}]))?';
const MINUS = '((?<![\\p{L}\\p{N}])[-−])?';

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function spokenNumber(language: NumberLanguage, integerText: string, fraction: string | undefined): string {
  const digits = removeSeparators(integerText);
  const integer =
    (digits.length > 1 && digits.startsWith('0')) || digits.length > 15
      ? spellDigits(digits, language.digitWords)
      : language.cardinal(digits);
  if (fraction === undefined) return integer;
  const fractionWords =
    language.fractionAsNumber && fraction.length <= 2 && !fraction.startsWith('0')
      ? language.cardinal(fraction)
      : spellDigits(fraction, language.digitWords);
  return `${integer} ${language.decimalWord} ${fractionWords}`;
}

function spokenAmount(
  language: NumberLanguage,
  currency: CurrencyWords,
  integerText: string,
  fraction: string | undefined,
  negative: boolean,
): string {
  const sign = negative ? `${language.minus} ` : '';
  const digits = removeSeparators(integerText);
  const cents = fraction === undefined ? 0 : Number(fraction.padEnd(2, '0'));
  const counted = (amount: string, words: [string, string], gender: CurrencyWords['gender']) => {
    const number = language.cardinalBeforeNoun(amount, gender);
    const noun = Number(amount) === 1 ? words[0] : words[1];
    return `${number}${language.nounLink(number, noun)}${noun}`;
  };
  if (fraction !== undefined && cents > 0 && !currency.minor) {
    return `${sign}${spokenNumber(language, integerText, fraction)} ${currency.major[1]}`;
  }
  const major = counted(digits, currency.major, currency.gender);
  if (cents === 0 || !currency.minor) return `${sign}${major}`;
  const minor = counted(String(cents), currency.minor, currency.minorGender);
  return Number(digits) === 0 ? `${sign}${minor}` : `${sign}${major} ${language.minorJoiner} ${minor}`;
}

function expandCurrency(text: string, language: NumberLanguage): string {
  const keys = Object.keys(language.currencies).sort((a, b) => b.length - a.length);
  const unit = `(${keys.map(escapeRegex).join('|')})`;
  // Letters-only codes ("EUR") must stand alone; symbols ("€") may touch the number.
  const unitBoundaryAfter = '(?![\\p{L}])';
  const before = new RegExp(`${MINUS}(?<![\\p{L}])${unit}\\s?${MINUS}(?<![\\p{N}])${INTEGER}${MONEY_FRACTION}`, 'gu');
  const after = new RegExp(`${MINUS}(?<![\\p{N}.,])${INTEGER}${MONEY_FRACTION}\\s?${unit}${unitBoundaryAfter}`, 'gu');
  return text
    .replace(after, (_m, minus, integer: string, fraction: string | undefined, key: string) =>
      spokenAmount(language, language.currencies[key]!, integer, fraction, Boolean(minus)),
    )
    .replace(before, (_m, minus1, key: string, minus2, integer: string, fraction: string | undefined) =>
      spokenAmount(language, language.currencies[key]!, integer, fraction, Boolean(minus1 || minus2)),
    );
}

function expandPercent(text: string, language: NumberLanguage): string {
  return text.replace(
    new RegExp(`${MINUS}(?<![\\p{N}.,])${INTEGER}${FRACTION}\\s?%`, 'gu'),
    (_m, minus, integer: string, fraction) =>
      `${minus ? `${language.minus} ` : ''}${spokenNumber(language, integer, fraction)} ${language.percent}`,
  );
}

/** Longest symbols first in UNIT_SYMBOLS, so "km/h" is not read as "km" then "/h". */
const UNIT_ALTERNATIVES = UNIT_SYMBOLS.map((source) => `(?:${source})`).join('|');
const UNIT_MATCHERS = UNIT_SYMBOLS.map((source) => ({ source, pattern: new RegExp(`^(?:${source})$`, 'u') }));

/** "31,5 °C" -> "trente et un virgule cinq degrés Celsius", "1 h" -> "une heure". */
function expandUnits(text: string, language: NumberLanguage): string {
  const pattern = new RegExp(`${MINUS}(?<![\\p{N}.,])${INTEGER}${FRACTION}\\s?(${UNIT_ALTERNATIVES})(?![\\p{L}\\p{N}/])`, 'gu');
  return text.replace(pattern, (matched, minus: string | undefined, integerText: string, fraction: string | undefined, symbol: string) => {
    const source = UNIT_MATCHERS.find((u) => u.pattern.test(symbol))?.source;
    if (!source) return matched;
    const [singular, plural, gender] = language.units[source as keyof NumberLanguage['units']];
    const integer = Number(removeSeparators(integerText));
    const single = language.unitSingularBelowTwo ? integer < 2 : integer === 1 && fraction === undefined;
    const noun = single ? singular : plural;
    const number =
      fraction === undefined
        ? language.cardinalBeforeNoun(removeSeparators(integerText), gender)
        : spokenNumber(language, integerText, fraction);
    // "un million de kilomètres", "un millón de kilómetros": the same link as before a currency.
    const phrase = `${number}${language.nounLink(number, noun)}${noun}`;
    return `${minus ? `${language.minus} ` : ''}${language.elide ? language.elide(phrase) : phrase}`;
  });
}

function expandClock(text: string, language: NumberLanguage): string {
  return text.replace(/(?<![\p{N}:.,])(\d{1,2})[:h](\d{2})(?![\p{N}:])/gu, (matched, h: string, m: string) => {
    const [hours, minutes] = [Number(h), Number(m)];
    return hours > 23 || minutes > 59 ? matched : language.clock(hours, minutes);
  });
}

function expandNumbers(text: string, language: NumberLanguage): string {
  const number = new RegExp(`([-−](?=\\d))?(?<![\\p{N}])${INTEGER}${FRACTION}(?![\\p{N}])`, 'gu');
  return text.replace(
    number,
    (matched, minus: string | undefined, integer: string, fraction: string | undefined, offset: number, whole: string) => {
      const before = whole[offset - 1] ?? '';
      const after = whole[offset + matched.length] ?? '';
      const negative = minus !== undefined && (before === '' || /[\s(\[{"'“‘«=:/]/u.test(before));
      const words = spokenNumber(language, integer, fraction);
      const lead = /\p{L}/u.test(before) && !minus ? ' ' : '';
      const trail = /\p{L}/u.test(after) ? ' ' : '';
      const prefix = minus === undefined ? '' : negative ? `${language.minus} ` : minus;
      return `${lead}${prefix}${words}${trail}`;
    },
  );
}

function expandSymbols(text: string, language: NumberLanguage): string {
  let out = text;
  for (const [symbol, words] of Object.entries(language.symbols)) {
    out = out.replace(new RegExp(`\\s*${escapeRegex(symbol)}\\s*`, 'g'), ` ${words} `);
  }
  return out;
}

/** Numbers, decimals, money, percentages, clock times and units for a language with a NumberLanguage. */
export function normalizeWithNumberLanguage(text: string, language: NumberLanguage): string {
  let out = expandCurrency(text, language);
  out = expandPercent(out, language);
  out = expandClock(out, language);
  out = expandUnits(out, language);
  out = expandNumbers(out, language);
  out = expandSymbols(out, language);
  return tidyWhitespace(out);
}
