import { digitGroups, spellDigits, stripLeadingZeros } from './digits.js';

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES = [
  '',
  'thousand',
  'million',
  'billion',
  'trillion',
  'quadrillion',
  'quintillion',
  'sextillion',
  'septillion',
  'octillion',
  'nonillion',
  'decillion',
];

/** Every word an English cardinal is spoken with ("twenty", "hundred", "million", ...). */
export const ENGLISH_NUMBER_WORDS: readonly string[] = [...ONES, ...TENS.filter(Boolean), 'hundred', ...SCALES.filter(Boolean)];

export const ENGLISH_DIGITS: readonly string[] = ONES.slice(0, 10);

function below100(n: number): string {
  if (n < 20) return ONES[n]!;
  const unit = n % 10;
  return unit === 0 ? TENS[Math.floor(n / 10)]! : `${TENS[Math.floor(n / 10)]}-${ONES[unit]}`;
}

function below1000(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds > 0) parts.push(`${ONES[hundreds]} hundred`);
  if (rest > 0 || hundreds === 0) parts.push(below100(rest));
  return parts.join(' ');
}

/**
 * American-style cardinal without "and": "1234567" -> "one million two hundred thirty-four
 * thousand five hundred sixty-seven". Digit strings beyond the named scales are read digit by digit.
 */
export function englishCardinal(value: number | string): string {
  const digits = stripLeadingZeros(String(value));
  if (digits === '0') return 'zero';
  const groups = digitGroups(digits, 3);
  if (groups.length > SCALES.length) return spellDigits(digits, ENGLISH_DIGITS);
  const words: string[] = [];
  groups.forEach((group, i) => {
    if (group === 0) return;
    const scale = SCALES[groups.length - 1 - i]!;
    words.push(scale ? `${below1000(group)} ${scale}` : below1000(group));
  });
  return words.join(' ');
}

const IRREGULAR_ORDINALS: Record<string, string> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
};

/** Turns the last word of a cardinal into its ordinal ("twenty-two" -> "twenty-second"). */
export function ordinalOfWords(cardinal: string): string {
  const match = /([a-z]+)$/.exec(cardinal);
  if (!match) return cardinal;
  const last = match[1]!;
  const ordinal = IRREGULAR_ORDINALS[last] ?? (last.endsWith('y') ? `${last.slice(0, -1)}ieth` : `${last}th`);
  return cardinal.slice(0, match.index) + ordinal;
}

/** "103" -> "one hundred third". */
export function englishOrdinal(value: number | string): string {
  return ordinalOfWords(englishCardinal(value));
}

/**
 * How years are said: 1999 -> "nineteen ninety-nine", 1905 -> "nineteen oh five",
 * 1900 -> "nineteen hundred", 2005 -> "two thousand five", 2024 -> "twenty twenty-four".
 */
export function englishYear(year: number): string {
  if (!Number.isInteger(year) || year < 1000 || year > 9999) return englishCardinal(Math.abs(Math.trunc(year)));
  const high = Math.floor(year / 100);
  const low = year % 100;
  if (year % 1000 < 10 && high % 10 === 0) {
    // 2000-2009 and 1000-1009: "two thousand five" is how these are said.
    return englishCardinal(year);
  }
  if (low === 0) return `${below100(high)} hundred`;
  if (low < 10) return `${below100(high)} oh ${ONES[low]}`;
  return `${below100(high)} ${below100(low)}`;
}

/**
 * A decimal as spoken: the integer part as a cardinal, the fraction digit by digit
 * ("3.14" -> "three point one four"). `integerDigits` may be empty (".5" -> "point five").
 */
export function englishDecimal(integerDigits: string, fractionDigits: string): string {
  const fraction = spellDigits(fractionDigits, ENGLISH_DIGITS);
  return integerDigits === '' ? `point ${fraction}` : `${englishCardinal(integerDigits)} point ${fraction}`;
}

/** Plural of a spelled number used as a noun ("nineteen nineties", "two thousands"). */
export function pluralOfWords(words: string): string {
  return words.endsWith('y') ? `${words.slice(0, -1)}ies` : `${words}s`;
}
