import type { Gender } from './number-language.js';

/** A unit's spoken name in one language: singular, plural, and the gender its number agrees with. */
export type UnitWords = [singular: string, plural: string, gender: Gender];

/**
 * The unit symbols read out in the languages with a NumberLanguage (English has its own table in
 * english-units.ts). Keys are regex sources, longest first where one is a prefix of another
 * ("km/h" before "km", "°C" before "°"). Matching is case-sensitive, as in English.
 */
const SYMBOLS = [
  'km/h',
  'm/s',
  '°\\s?C',
  '°\\s?F',
  '°',
  'km',
  'cm',
  'mm',
  'm',
  'kg',
  'mg',
  'g',
  'ml|mL',
  'l|L',
  'kWh',
  'kW',
  'W',
  'GB|Go',
  'MB|Mo',
  'min',
  'h',
  's',
] as const;
type Symbol = (typeof SYMBOLS)[number];
export type UnitTable = Record<Symbol, UnitWords>;

export const UNIT_SYMBOLS: readonly string[] = SYMBOLS;

const m = (singular: string, plural = `${singular}s`): UnitWords => [singular, plural, 'm'];
const f = (singular: string, plural = `${singular}s`): UnitWords => [singular, plural, 'f'];
/** German unit nouns after a number keep their singular form (zwei Kilometer, drei Grad). */
const de = (word: string, plural = word, gender: Gender = 'm'): UnitWords => [word, plural, gender];

export const FRENCH_UNITS: UnitTable = {
  'km/h': m('kilomètre par heure', 'kilomètres par heure'),
  'm/s': m('mètre par seconde', 'mètres par seconde'),
  '°\\s?C': m('degré Celsius', 'degrés Celsius'),
  '°\\s?F': m('degré Fahrenheit', 'degrés Fahrenheit'),
  '°': m('degré'),
  km: m('kilomètre'),
  cm: m('centimètre'),
  mm: m('millimètre'),
  m: m('mètre'),
  kg: m('kilogramme'),
  mg: m('milligramme'),
  g: m('gramme'),
  'ml|mL': m('millilitre'),
  'l|L': m('litre'),
  kWh: m('kilowattheure'),
  kW: m('kilowatt'),
  W: m('watt'),
  'GB|Go': m('gigaoctet'),
  'MB|Mo': m('mégaoctet'),
  min: f('minute'),
  h: f('heure'),
  s: f('seconde'),
};

export const GERMAN_UNITS: UnitTable = {
  'km/h': de('Kilometer pro Stunde'),
  'm/s': de('Meter pro Sekunde'),
  '°\\s?C': de('Grad Celsius'),
  '°\\s?F': de('Grad Fahrenheit'),
  '°': de('Grad'),
  km: de('Kilometer'),
  cm: de('Zentimeter'),
  mm: de('Millimeter'),
  m: de('Meter'),
  kg: de('Kilogramm'),
  mg: de('Milligramm'),
  g: de('Gramm'),
  'ml|mL': de('Milliliter'),
  'l|L': de('Liter'),
  kWh: de('Kilowattstunde', 'Kilowattstunden', 'f'),
  kW: de('Kilowatt'),
  W: de('Watt'),
  'GB|Go': de('Gigabyte'),
  'MB|Mo': de('Megabyte'),
  min: de('Minute', 'Minuten', 'f'),
  h: de('Stunde', 'Stunden', 'f'),
  s: de('Sekunde', 'Sekunden', 'f'),
};

export const SPANISH_UNITS: UnitTable = {
  'km/h': m('kilómetro por hora', 'kilómetros por hora'),
  'm/s': m('metro por segundo', 'metros por segundo'),
  '°\\s?C': m('grado Celsius', 'grados Celsius'),
  '°\\s?F': m('grado Fahrenheit', 'grados Fahrenheit'),
  '°': m('grado'),
  km: m('kilómetro'),
  cm: m('centímetro'),
  mm: m('milímetro'),
  m: m('metro'),
  kg: m('kilogramo'),
  mg: m('miligramo'),
  g: m('gramo'),
  'ml|mL': m('mililitro'),
  'l|L': m('litro'),
  kWh: m('kilovatio hora', 'kilovatios hora'),
  kW: m('kilovatio'),
  W: m('vatio'),
  'GB|Go': m('gigabyte'),
  'MB|Mo': m('megabyte'),
  min: m('minuto'),
  h: f('hora'),
  s: m('segundo'),
};

export const ITALIAN_UNITS: UnitTable = {
  'km/h': m('chilometro orario', 'chilometri orari'),
  'm/s': m('metro al secondo', 'metri al secondo'),
  '°\\s?C': m('grado Celsius', 'gradi Celsius'),
  '°\\s?F': m('grado Fahrenheit', 'gradi Fahrenheit'),
  '°': m('grado', 'gradi'),
  km: m('chilometro', 'chilometri'),
  cm: m('centimetro', 'centimetri'),
  mm: m('millimetro', 'millimetri'),
  m: m('metro', 'metri'),
  kg: m('chilogrammo', 'chilogrammi'),
  mg: m('milligrammo', 'milligrammi'),
  g: m('grammo', 'grammi'),
  'ml|mL': m('millilitro', 'millilitri'),
  'l|L': m('litro', 'litri'),
  kWh: m('chilowattora', 'chilowattora'),
  kW: m('chilowatt', 'chilowatt'),
  W: m('watt', 'watt'),
  'GB|Go': m('gigabyte', 'gigabyte'),
  'MB|Mo': m('megabyte', 'megabyte'),
  min: m('minuto', 'minuti'),
  h: f('ora', 'ore'),
  s: m('secondo', 'secondi'),
};

export const PORTUGUESE_UNITS: UnitTable = {
  'km/h': m('quilômetro por hora', 'quilômetros por hora'),
  'm/s': m('metro por segundo', 'metros por segundo'),
  '°\\s?C': m('grau Celsius', 'graus Celsius'),
  '°\\s?F': m('grau Fahrenheit', 'graus Fahrenheit'),
  '°': m('grau'),
  km: m('quilômetro'),
  cm: m('centímetro'),
  mm: m('milímetro'),
  m: m('metro'),
  kg: m('quilograma'),
  mg: m('miligrama'),
  g: m('grama'),
  'ml|mL': m('mililitro'),
  'l|L': m('litro'),
  kWh: m('quilowatt-hora', 'quilowatts-hora'),
  kW: m('quilowatt'),
  W: m('watt'),
  'GB|Go': m('gigabyte'),
  'MB|Mo': m('megabyte'),
  min: m('minuto'),
  h: f('hora'),
  s: m('segundo'),
};
