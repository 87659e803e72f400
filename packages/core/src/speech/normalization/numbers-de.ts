import { digitGroups, spellDigits, stripLeadingZeros } from './digits.js';
import { currency, type NumberLanguage } from './number-language.js';
import { GERMAN_UNITS } from './unit-words.js';

const UNITS = [
  'null',
  'eins',
  'zwei',
  'drei',
  'vier',
  'fünf',
  'sechs',
  'sieben',
  'acht',
  'neun',
  'zehn',
  'elf',
  'zwölf',
  'dreizehn',
  'vierzehn',
  'fünfzehn',
  'sechzehn',
  'siebzehn',
  'achtzehn',
  'neunzehn',
];
const TENS = ['', '', 'zwanzig', 'dreißig', 'vierzig', 'fünfzig', 'sechzig', 'siebzig', 'achtzig', 'neunzig'];
/** From a million on, the scale words are separate, capitalized nouns with "eine" and a plural. */
const SCALES: Array<[string, string]> = [
  ['', ''],
  ['tausend', 'tausend'],
  ['Million', 'Millionen'],
  ['Milliarde', 'Milliarden'],
  ['Billion', 'Billionen'],
  ['Billiarde', 'Billiarden'],
  ['Trillion', 'Trillionen'],
];

/** "eins" only stands alone; inside a compound it is "ein" ("einhundert", "einundzwanzig"). */
function compoundOne(words: string): string {
  return words.replace(/eins$/, 'ein');
}

function below100(n: number): string {
  if (n < 20) return UNITS[n]!;
  const unit = n % 10;
  const tens = TENS[Math.floor(n / 10)]!;
  return unit === 0 ? tens : `${compoundOne(UNITS[unit]!)}und${tens}`;
}

function below1000(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const head = hundreds > 0 ? `${compoundOne(UNITS[hundreds]!)}hundert` : '';
  return rest > 0 || hundreds === 0 ? head + below100(rest) : head;
}

/** Everything below a million is one word: "zweihundertvierunddreißigtausendfünfhundertsiebenundsechzig". */
export function germanCardinal(value: number | string): string {
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
    else if (scaleIndex === 1) belowMillion += `${compoundOne(below1000(group))}tausend`;
    else {
      const [singular, plural] = SCALES[scaleIndex]!;
      words.push(group === 1 ? `eine ${singular}` : `${compoundOne(below1000(group))} ${plural}`);
    }
  });
  if (belowMillion) words.push(belowMillion);
  return words.join(' ');
}

const EURO = currency(['Euro', 'Euro'], ['Cent', 'Cent']);
const POUND = currency(['Pfund', 'Pfund'], ['Penny', 'Pence']);
const YEN = currency(['Yen', 'Yen'], null);

export const GERMAN: NumberLanguage = {
  cardinal: germanCardinal,
  cardinalBeforeNoun: (digits, gender) => {
    const words = germanCardinal(digits);
    return words === 'eins' ? (gender === 'f' ? 'eine' : 'ein') : words;
  },
  nounLink: () => ' ',
  clock: (hours, minutes) => {
    const hour = `${hours === 1 ? 'ein' : germanCardinal(hours)} Uhr`;
    return minutes === 0 ? hour : `${hour} ${germanCardinal(minutes)}`;
  },
  digitWords: UNITS.slice(0, 10),
  minus: 'minus',
  decimalWord: 'Komma',
  fractionAsNumber: false,
  percent: 'Prozent',
  minorJoiner: 'und',
  currencies: {
    '€': EURO,
    EUR: EURO,
    $: currency(['Dollar', 'Dollar'], ['Cent', 'Cent']),
    USD: currency(['US-Dollar', 'US-Dollar'], ['Cent', 'Cent']),
    '£': POUND,
    GBP: POUND,
    '¥': YEN,
    JPY: YEN,
    CHF: currency(['Franken', 'Franken'], ['Rappen', 'Rappen']),
  },
  symbols: { '&': 'und', '+': 'plus', '=': 'gleich', '@': 'at' },
  units: GERMAN_UNITS,
};
