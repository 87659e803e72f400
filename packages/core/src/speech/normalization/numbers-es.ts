import { digitGroups, spellDigits, stripLeadingZeros } from './digits.js';
import { currency, type Gender, type NumberLanguage } from './number-language.js';
import { SPANISH_UNITS } from './unit-words.js';

const UNITS = [
  'cero',
  'uno',
  'dos',
  'tres',
  'cuatro',
  'cinco',
  'seis',
  'siete',
  'ocho',
  'nueve',
  'diez',
  'once',
  'doce',
  'trece',
  'catorce',
  'quince',
  'dieciséis',
  'diecisiete',
  'dieciocho',
  'diecinueve',
  'veinte',
  'veintiuno',
  'veintidós',
  'veintitrés',
  'veinticuatro',
  'veinticinco',
  'veintiséis',
  'veintisiete',
  'veintiocho',
  'veintinueve',
];
const TENS = ['', '', '', 'treinta', 'cuarenta', 'cincuenta', 'sesenta', 'setenta', 'ochenta', 'noventa'];
const HUNDREDS = [
  '',
  'ciento',
  'doscientos',
  'trescientos',
  'cuatrocientos',
  'quinientos',
  'seiscientos',
  'setecientos',
  'ochocientos',
  'novecientos',
];
/** Long scale: each name is a million times the previous one. */
const MILLION_SCALES: Array<[string, string]> = [
  ['', ''],
  ['millón', 'millones'],
  ['billón', 'billones'],
  ['trillón', 'trillones'],
];

function below100(n: number): string {
  if (n < 30) return UNITS[n]!;
  const unit = n % 10;
  return unit === 0 ? TENS[Math.floor(n / 10)]! : `${TENS[Math.floor(n / 10)]} y ${UNITS[unit]}`;
}

function below1000(n: number): string {
  if (n === 100) return 'cien';
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds > 0) parts.push(HUNDREDS[hundreds]!);
  if (rest > 0 || hundreds === 0) parts.push(below100(rest));
  return parts.join(' ');
}

/** "uno" shortens before a noun or "mil": "un euro", "veintiún mil", "treinta y un millones". */
function apocope(words: string, gender: Gender = 'm'): string {
  if (gender === 'f') return words.replace(/uno$/, 'una');
  return words.replace(/veintiuno$/, 'veintiún').replace(/(^|\s)uno$/, '$1un');
}

function belowMillion(n: number): string {
  const thousands = Math.floor(n / 1000);
  const rest = n % 1000;
  const parts: string[] = [];
  if (thousands === 1) parts.push('mil');
  else if (thousands > 1) parts.push(`${apocope(below1000(thousands))} mil`);
  if (rest > 0 || thousands === 0) parts.push(below1000(rest));
  return parts.join(' ');
}

export function spanishCardinal(value: number | string): string {
  const digits = stripLeadingZeros(String(value));
  if (digits === '0') return UNITS[0]!;
  const blocks = digitGroups(digits, 6);
  if (blocks.length > MILLION_SCALES.length) return spellDigits(digits, UNITS);
  const words: string[] = [];
  blocks.forEach((block, i) => {
    if (block === 0) return;
    const scaleIndex = blocks.length - 1 - i;
    if (scaleIndex === 0) words.push(belowMillion(block));
    else {
      const [singular, plural] = MILLION_SCALES[scaleIndex]!;
      words.push(block === 1 ? `un ${singular}` : `${apocope(belowMillion(block))} ${plural}`);
    }
  });
  return words.join(' ');
}

const EURO = currency(['euro', 'euros'], ['céntimo', 'céntimos']);
const POUND = currency(['libra', 'libras'], ['penique', 'peniques'], 'f');
const YEN = currency(['yen', 'yenes'], null);

export const SPANISH: NumberLanguage = {
  cardinal: spanishCardinal,
  cardinalBeforeNoun: (digits, gender) => apocope(spanishCardinal(digits), gender),
  nounLink: (number) => (/(?:millón|millones|billón|billones|trillón|trillones)$/.test(number) ? ' de ' : ' '),
  clock: (hours, minutes) => {
    const hour = hours === 1 ? 'una' : spanishCardinal(hours);
    return minutes === 0 ? `${hour} en punto` : `${hour} y ${spanishCardinal(minutes)}`;
  },
  digitWords: UNITS.slice(0, 10),
  minus: 'menos',
  decimalWord: 'coma',
  fractionAsNumber: true,
  percent: 'por ciento',
  minorJoiner: 'con',
  currencies: {
    '€': EURO,
    EUR: EURO,
    $: currency(['dólar', 'dólares'], ['centavo', 'centavos']),
    USD: currency(['dólar estadounidense', 'dólares estadounidenses'], ['centavo', 'centavos']),
    '£': POUND,
    GBP: POUND,
    '¥': YEN,
    JPY: YEN,
  },
  symbols: { '&': 'y', '+': 'más', '=': 'igual a', '@': 'arroba' },
  units: SPANISH_UNITS,
};
