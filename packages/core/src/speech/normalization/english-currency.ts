import { removeSeparators } from './digits.js';
import { englishCardinal, englishDecimal } from './english-numbers.js';

interface Currency {
  major: [singular: string, plural: string];
  /** Null when amounts have no minor unit worth saying (yen). */
  minor: [singular: string, plural: string] | null;
}

const DOLLAR: Currency = { major: ['dollar', 'dollars'], minor: ['cent', 'cents'] };
const EURO: Currency = { major: ['euro', 'euros'], minor: ['cent', 'cents'] };
const POUND: Currency = { major: ['pound', 'pounds'], minor: ['penny', 'pence'] };
const YEN: Currency = { major: ['yen', 'yen'], minor: null };

const BY_SYMBOL: Record<string, Currency> = {
  $: DOLLAR,
  '€': EURO,
  '£': POUND,
  '¥': YEN,
  '₹': { major: ['rupee', 'rupees'], minor: ['paisa', 'paise'] },
  '₩': { major: ['won', 'won'], minor: null },
  '₽': { major: ['ruble', 'rubles'], minor: ['kopek', 'kopeks'] },
  '₺': { major: ['lira', 'lira'], minor: ['kurus', 'kurus'] },
};

const BY_CODE: Record<string, Currency> = {
  USD: { major: ['US dollar', 'US dollars'], minor: ['cent', 'cents'] },
  EUR: EURO,
  GBP: POUND,
  JPY: YEN,
  CNY: { major: ['yuan', 'yuan'], minor: null },
  INR: BY_SYMBOL['₹']!,
  CHF: { major: ['Swiss franc', 'Swiss francs'], minor: ['centime', 'centimes'] },
  CAD: { major: ['Canadian dollar', 'Canadian dollars'], minor: ['cent', 'cents'] },
  AUD: { major: ['Australian dollar', 'Australian dollars'], minor: ['cent', 'cents'] },
};

const SCALE_WORDS: Record<string, string> = {
  k: 'thousand',
  K: 'thousand',
  thousand: 'thousand',
  M: 'million',
  mn: 'million',
  million: 'million',
  B: 'billion',
  bn: 'billion',
  billion: 'billion',
  tn: 'trillion',
  trillion: 'trillion',
};

const AMOUNT = '(\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.(\\d+))?';
// Whole words may follow a space ("$2.5 million"); letter suffixes only hug the number ("$5k"),
// so "$5 T-shirts" keeps its T.
const SCALE = '(\\s?(?:thousand|million|billion|trillion)(?!\\p{L})|(?:bn|mn|tn|[kKMB])(?![\\p{L}\\p{N}]))?';

function plural(words: [string, string], one: boolean): string {
  return one ? words[0] : words[1];
}

/**
 * "$5.50" -> "five dollars and fifty cents", "$0.99" -> "ninety-nine cents",
 * "$2.5 million" -> "two point five million dollars".
 */
export function spokenAmount(
  currency: Currency,
  integerText: string,
  fraction: string | undefined,
  scale: string | undefined,
  negative: boolean,
): string {
  const integer = removeSeparators(integerText);
  const sign = negative ? 'minus ' : '';
  if (scale) {
    const number = fraction ? englishDecimal(integer, fraction) : englishCardinal(integer);
    return `${sign}${number} ${SCALE_WORDS[scale.trim()]} ${currency.major[1]}`;
  }
  const majorIsOne = Number(integer) === 1;
  if (fraction === undefined || fraction.length > 2 || !currency.minor) {
    // Unusual precision ($1.234) or no minor unit: read the amount as a plain decimal.
    const exactlyOne = majorIsOne && (fraction === undefined || /^0*$/.test(fraction));
    const number = fraction ? englishDecimal(integer, fraction) : englishCardinal(integer);
    return `${sign}${number} ${plural(currency.major, exactlyOne)}`;
  }
  const cents = Number(fraction.padEnd(2, '0'));
  const major = `${englishCardinal(integer)} ${plural(currency.major, majorIsOne)}`;
  const minor = `${englishCardinal(cents)} ${plural(currency.minor, cents === 1)}`;
  if (cents === 0) return `${sign}${major}`;
  if (Number(integer) === 0) return `${sign}${minor}`;
  return `${sign}${major} and ${minor}`;
}

const NEGATIVE = '((?<![\\p{L}\\p{N}])[-−])?';
const SYMBOLS = '([$€£¥₹₩₽₺])';
const CODES = `(${Object.keys(BY_CODE).join('|')})`;

/** "$5", "€3", "5 €", "USD 20", "20 EUR" and friends, in words. */
export function expandEnglishCurrency(text: string): string {
  const symbolFirst = new RegExp(`${NEGATIVE}${SYMBOLS}\\s?${NEGATIVE}${AMOUNT}${SCALE}`, 'gu');
  const symbolAfter = new RegExp(`${NEGATIVE}(?<![\\p{N}.,])${AMOUNT}${SCALE}\\s?${SYMBOLS}`, 'gu');
  const codeFirst = new RegExp(`\\b${CODES}\\s?${NEGATIVE}${AMOUNT}${SCALE}`, 'gu');
  const codeAfter = new RegExp(`${NEGATIVE}(?<![\\p{N}.,])${AMOUNT}${SCALE}\\s?${CODES}\\b`, 'gu');
  return text
    .replace(symbolFirst, (_m, neg1, symbol: string, neg2, int: string, frac, scale) =>
      spokenAmount(BY_SYMBOL[symbol]!, int, frac, scale, Boolean(neg1 || neg2)),
    )
    .replace(symbolAfter, (_m, neg, int: string, frac, scale, symbol: string) =>
      spokenAmount(BY_SYMBOL[symbol]!, int, frac, scale, Boolean(neg)),
    )
    .replace(codeFirst, (_m, code: string, neg, int: string, frac, scale) => spokenAmount(BY_CODE[code]!, int, frac, scale, Boolean(neg)))
    .replace(codeAfter, (_m, neg, int: string, frac, scale, code: string) => spokenAmount(BY_CODE[code]!, int, frac, scale, Boolean(neg)));
}
