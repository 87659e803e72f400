import { digitGroups, spellDigits, stripLeadingZeros } from './digits.js';
import { currency, type NumberLanguage } from './number-language.js';
import { PORTUGUESE_UNITS, type UnitTable } from './unit-words.js';

/** Brazilian and European Portuguese differ in 16, 17, 19 and in the names of large scales. */
export type PortugueseVariant = 'br' | 'pt';

const UNITS_BR = [
  'zero',
  'um',
  'dois',
  'três',
  'quatro',
  'cinco',
  'seis',
  'sete',
  'oito',
  'nove',
  'dez',
  'onze',
  'doze',
  'treze',
  'catorze',
  'quinze',
  'dezesseis',
  'dezessete',
  'dezoito',
  'dezenove',
];
const UNITS_PT = UNITS_BR.map((w, i) => ({ 16: 'dezasseis', 17: 'dezassete', 19: 'dezanove' })[i as 16 | 17 | 19] ?? w);
const TENS = ['', '', 'vinte', 'trinta', 'quarenta', 'cinquenta', 'sessenta', 'setenta', 'oitenta', 'noventa'];
const HUNDREDS = [
  '',
  'cento',
  'duzentos',
  'trezentos',
  'quatrocentos',
  'quinhentos',
  'seiscentos',
  'setecentos',
  'oitocentos',
  'novecentos',
];
/** Brazil counts in the short scale (bilhão = 10^9); Portugal in the long one (mil milhões, bilião = 10^12). */
const SCALES_BR: Array<[string, string]> = [
  ['', ''],
  ['mil', 'mil'],
  ['milhão', 'milhões'],
  ['bilhão', 'bilhões'],
  ['trilhão', 'trilhões'],
  ['quatrilhão', 'quatrilhões'],
];
const SCALES_PT: Array<[string, string]> = [
  ['', ''],
  ['mil', 'mil'],
  ['milhão', 'milhões'],
  ['mil milhões', 'mil milhões'],
  ['bilião', 'biliões'],
  ['mil biliões', 'mil biliões'],
];

function below1000(n: number, units: readonly string[]): string {
  if (n === 100) return 'cem';
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds > 0) parts.push(HUNDREDS[hundreds]!);
  if (rest > 0 && rest < 20) parts.push(units[rest]!);
  else if (rest >= 20) parts.push(rest % 10 === 0 ? TENS[rest / 10]! : `${TENS[Math.floor(rest / 10)]} e ${units[rest % 10]}`);
  if (parts.length === 0) return units[0]!;
  return parts.join(' e ');
}

/**
 * "e" joins the last group when it is below 100 or a round hundred ("mil e cem",
 * "dois mil e trinta", but "mil duzentos e trinta e quatro").
 */
export function portugueseCardinal(value: number | string, variant: PortugueseVariant = 'br'): string {
  const digits = stripLeadingZeros(String(value));
  const units = variant === 'pt' ? UNITS_PT : UNITS_BR;
  const scales = variant === 'pt' ? SCALES_PT : SCALES_BR;
  if (digits === '0') return units[0]!;
  const groups = digitGroups(digits, 3);
  if (groups.length > scales.length) return spellDigits(digits, units);
  // In the long scale, "mil milhões" with a non-zero millions group is said "dois mil e trezentos milhões";
  // this reader keeps it simple and names each group, which stays understandable.
  const parts: Array<{ words: string; group: number }> = [];
  groups.forEach((group, i) => {
    if (group === 0) return;
    const scaleIndex = groups.length - 1 - i;
    const [singular, plural] = scales[scaleIndex]!;
    if (scaleIndex === 0) parts.push({ words: below1000(group, units), group });
    else if (scaleIndex === 1) parts.push({ words: group === 1 ? 'mil' : `${below1000(group, units)} mil`, group });
    // "mil milhões" counts thousands of millions; one of them is just "mil milhões".
    else if (group === 1 && singular.startsWith('mil ')) parts.push({ words: singular, group });
    else parts.push({ words: `${below1000(group, units)} ${group === 1 ? singular : plural}`, group });
  });
  return parts
    .map((part, i) => {
      if (i === 0) return part.words;
      const joinWithE = i === parts.length - 1 && (part.group < 100 || part.group % 100 === 0);
      return `${joinWithE ? 'e ' : ''}${part.words}`;
    })
    .join(' ');
}

function feminine(words: string): string {
  return words.replace(/(^|\s)um$/, '$1uma').replace(/(^|\s)dois$/, '$1duas');
}

export function portugueseLanguage(variant: PortugueseVariant): NumberLanguage {
  const cardinal = (digits: string) => portugueseCardinal(digits, variant);
  const cents = variant === 'pt' ? (['cêntimo', 'cêntimos'] as [string, string]) : (['centavo', 'centavos'] as [string, string]);
  const euro = currency(['euro', 'euros'], cents);
  const pound = currency(['libra', 'libras'], ['péni', 'pence'], 'f');
  const yen = currency(['iene', 'ienes'], null);
  const real = currency(['real', 'reais'], ['centavo', 'centavos']);
  return {
    cardinal,
    cardinalBeforeNoun: (digits, gender) => (gender === 'f' ? feminine(cardinal(digits)) : cardinal(digits)),
    nounLink: (number) => (/(?:milhão|milhões|bilhão|bilhões|bilião|biliões|trilhão|trilhões)$/.test(number) ? ' de ' : ' '),
    clock: (hours, minutes) => {
      const hour = feminine(cardinal(String(hours)));
      return minutes === 0 ? `${hour} ${hours === 1 ? 'hora' : 'horas'}` : `${hour} e ${cardinal(String(minutes))}`;
    },
    digitWords: (variant === 'pt' ? UNITS_PT : UNITS_BR).slice(0, 10),
    minus: 'menos',
    decimalWord: 'vírgula',
    fractionAsNumber: true,
    percent: 'por cento',
    minorJoiner: 'e',
    currencies: {
      R$: real,
      BRL: real,
      '€': euro,
      EUR: euro,
      $: currency(['dólar', 'dólares'], ['centavo', 'centavos']),
      USD: currency(['dólar americano', 'dólares americanos'], ['centavo', 'centavos']),
      '£': pound,
      GBP: pound,
      '¥': yen,
      JPY: yen,
    },
    symbols: { '&': 'e', '+': 'mais', '=': 'igual a', '@': 'arroba' },
    // European Portuguese writes quilómetro.
    units: variant === 'pt' ? europeanPortugueseUnits() : PORTUGUESE_UNITS,
  };
}

function europeanPortugueseUnits(): UnitTable {
  return Object.fromEntries(
    Object.entries(PORTUGUESE_UNITS).map(([symbol, [singular, plural, gender]]) => [
      symbol,
      [singular.replace('ômetro', 'ómetro'), plural.replace('ômetro', 'ómetro'), gender],
    ]),
  ) as UnitTable;
}
