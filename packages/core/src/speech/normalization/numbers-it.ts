import { digitGroups, spellDigits, stripLeadingZeros } from './digits.js';
import { currency, type NumberLanguage } from './number-language.js';
import { ITALIAN_UNITS } from './unit-words.js';

const UNITS = [
  'zero',
  'uno',
  'due',
  'tre',
  'quattro',
  'cinque',
  'sei',
  'sette',
  'otto',
  'nove',
  'dieci',
  'undici',
  'dodici',
  'tredici',
  'quattordici',
  'quindici',
  'sedici',
  'diciassette',
  'diciotto',
  'diciannove',
];
const TENS = ['', '', 'venti', 'trenta', 'quaranta', 'cinquanta', 'sessanta', 'settanta', 'ottanta', 'novanta'];
const SCALES: Array<[string, string]> = [
  ['', ''],
  ['mille', 'mila'],
  ['milione', 'milioni'],
  ['miliardo', 'miliardi'],
  ['bilione', 'bilioni'],
];

/** Tens drop their vowel before "uno" and "otto": "ventuno", "trentotto". */
function below100(n: number): string {
  if (n < 20) return UNITS[n]!;
  const unit = n % 10;
  const tens = TENS[Math.floor(n / 10)]!;
  if (unit === 0) return tens;
  return (unit === 1 || unit === 8 ? tens.slice(0, -1) : tens) + UNITS[unit];
}

/** "cento" drops its vowel before "otto"/"ottanta": "centotto", "centottanta". */
function below1000(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const head = hundreds === 0 ? '' : hundreds === 1 ? 'cento' : `${UNITS[hundreds]}cento`;
  if (rest === 0 && hundreds > 0) return head;
  const tail = below100(rest);
  return tail.startsWith('o') && head ? head.slice(0, -1) + tail : head + tail;
}

/** A compound that ends in "tre" takes an accent: "ventitré", "centotré" (but plain "tre"). */
function accentFinalThree(words: string): string {
  return words.replace(/(\S)tre$/, '$1tré');
}

/** "uno" shortens in front of what it multiplies: "ventunmila", "trentun milioni". */
function multiplier(n: number): string {
  return below1000(n).replace(/uno$/, 'un');
}

/** Everything below a million is one word: "milleduecentotrentaquattro". */
export function italianCardinal(value: number | string): string {
  const digits = stripLeadingZeros(String(value));
  if (digits === '0') return UNITS[0]!;
  const groups = digitGroups(digits, 3);
  if (groups.length > SCALES.length) return spellDigits(digits, UNITS);
  const words: string[] = [];
  let belowMillion = '';
  groups.forEach((group, i) => {
    if (group === 0) return;
    const scaleIndex = groups.length - 1 - i;
    if (scaleIndex === 0) belowMillion += below1000(group);
    else if (scaleIndex === 1) belowMillion += group === 1 ? 'mille' : `${multiplier(group)}mila`;
    else {
      const [singular, plural] = SCALES[scaleIndex]!;
      words.push(group === 1 ? `un ${singular}` : `${multiplier(group)} ${plural}`);
    }
  });
  if (belowMillion) words.push(belowMillion);
  return accentFinalThree(words.join(' '));
}

const EURO = currency(['euro', 'euro'], ['centesimo', 'centesimi']);
const POUND = currency(['sterlina', 'sterline'], ['penny', 'pence'], 'f');
const YEN = currency(['yen', 'yen'], null);

export const ITALIAN: NumberLanguage = {
  cardinal: italianCardinal,
  cardinalBeforeNoun: (digits, gender) => {
    const words = italianCardinal(digits);
    return words === 'uno' ? (gender === 'f' ? 'una' : 'un') : words;
  },
  nounLink: (number) => (/(?:milione|milioni|miliardo|miliardi)$/.test(number) ? ' di ' : ' '),
  clock: (hours, minutes) => (minutes === 0 ? italianCardinal(hours) : `${italianCardinal(hours)} e ${italianCardinal(minutes)}`),
  digitWords: UNITS.slice(0, 10),
  minus: 'meno',
  decimalWord: 'virgola',
  fractionAsNumber: true,
  percent: 'per cento',
  minorJoiner: 'e',
  currencies: {
    '€': EURO,
    EUR: EURO,
    $: currency(['dollaro', 'dollari'], ['centesimo', 'centesimi']),
    USD: currency(['dollaro statunitense', 'dollari statunitensi'], ['centesimo', 'centesimi']),
    '£': POUND,
    GBP: POUND,
    '¥': YEN,
    JPY: YEN,
  },
  symbols: { '&': 'e', '+': 'più', '=': 'uguale', '@': 'chiocciola' },
  units: ITALIAN_UNITS,
  elide: (phrase) => phrase.replace(/(^|\s)una (?=[aeiouàèéìòù])/giu, "$1un'"),
};
