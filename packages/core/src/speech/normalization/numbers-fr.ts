import { digitGroups, spellDigits, stripLeadingZeros } from './digits.js';
import { currency, type NumberLanguage } from './number-language.js';
import { FRENCH_UNITS } from './unit-words.js';

const UNITS = [
  'zéro',
  'un',
  'deux',
  'trois',
  'quatre',
  'cinq',
  'six',
  'sept',
  'huit',
  'neuf',
  'dix',
  'onze',
  'douze',
  'treize',
  'quatorze',
  'quinze',
  'seize',
  'dix-sept',
  'dix-huit',
  'dix-neuf',
];
const TENS = ['', '', 'vingt', 'trente', 'quarante', 'cinquante', 'soixante'];
/** 10^3 is "mille" (invariable, no "un"); the rest are nouns that take "un" and a plural. */
const SCALES: Array<[string, string]> = [
  ['', ''],
  ['mille', 'mille'],
  ['million', 'millions'],
  ['milliard', 'milliards'],
  ['billion', 'billions'],
  ['billiard', 'billiards'],
  ['trillion', 'trillions'],
];

/**
 * `final`: the number ends here or a noun like "millions" follows. Only then do "quatre-vingts"
 * and "deux cents" keep their plural s ("quatre-vingt mille", "deux cent mille").
 */
function below100(n: number, final: boolean): string {
  if (n < 20) return UNITS[n]!;
  if (n < 70) {
    const tens = TENS[Math.floor(n / 10)]!;
    const unit = n % 10;
    if (unit === 0) return tens;
    return unit === 1 ? `${tens} et un` : `${tens}-${UNITS[unit]}`;
  }
  if (n < 80) return n === 71 ? 'soixante et onze' : `soixante-${UNITS[n - 60]}`;
  if (n === 80) return final ? 'quatre-vingts' : 'quatre-vingt';
  return `quatre-vingt-${UNITS[n - 80]}`;
}

function below1000(n: number, final: boolean): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds === 1) parts.push('cent');
  else if (hundreds > 1) parts.push(`${UNITS[hundreds]} ${rest === 0 && final ? 'cents' : 'cent'}`);
  if (rest > 0 || hundreds === 0) parts.push(below100(rest, final));
  return parts.join(' ');
}

export function frenchCardinal(value: number | string): string {
  const digits = stripLeadingZeros(String(value));
  if (digits === '0') return UNITS[0]!;
  const groups = digitGroups(digits, 3);
  if (groups.length > SCALES.length) return spellDigits(digits, UNITS);
  const words: string[] = [];
  groups.forEach((group, i) => {
    if (group === 0) return;
    const scaleIndex = groups.length - 1 - i;
    if (scaleIndex === 0) words.push(below1000(group, true));
    else if (scaleIndex === 1) words.push(group === 1 ? 'mille' : `${below1000(group, false)} mille`);
    else {
      const [singular, plural] = SCALES[scaleIndex]!;
      words.push(`${below1000(group, true)} ${group === 1 ? singular : plural}`);
    }
  });
  return words.join(' ');
}

const EURO = currency(['euro', 'euros'], ['centime', 'centimes']);
const YEN = currency(['yen', 'yens'], null);

export const FRENCH: NumberLanguage = {
  cardinal: frenchCardinal,
  cardinalBeforeNoun: (digits, gender) => {
    const words = frenchCardinal(digits);
    return gender === 'f' ? words.replace(/(^|[\s-])un$/, '$1une') : words;
  },
  nounLink: (number, noun) => (/(?:million|milliard|billion)s?$/.test(number) ? (/^[aeiouyéèh]/i.test(noun) ? " d'" : ' de ') : ' '),
  clock: (hours, minutes) => {
    const hour = `${hours === 1 ? 'une' : frenchCardinal(hours)} ${hours <= 1 ? 'heure' : 'heures'}`;
    return minutes === 0 ? hour : `${hour} ${frenchCardinal(minutes)}`;
  },
  digitWords: UNITS.slice(0, 10),
  minus: 'moins',
  decimalWord: 'virgule',
  fractionAsNumber: true,
  percent: 'pour cent',
  minorJoiner: 'et',
  currencies: {
    '€': EURO,
    EUR: EURO,
    $: currency(['dollar', 'dollars'], ['cent', 'cents']),
    USD: currency(['dollar américain', 'dollars américains'], ['cent', 'cents']),
    '£': currency(['livre', 'livres'], ['penny', 'pence'], 'f'),
    GBP: currency(['livre sterling', 'livres sterling'], ['penny', 'pence'], 'f'),
    '¥': YEN,
    JPY: YEN,
    CHF: currency(['franc suisse', 'francs suisses'], ['centime', 'centimes']),
  },
  symbols: { '&': 'et', '+': 'plus', '=': 'égale', '@': 'arobase' },
  units: FRENCH_UNITS,
  unitSingularBelowTwo: true,
};
