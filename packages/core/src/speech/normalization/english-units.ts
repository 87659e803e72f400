import { removeSeparators } from './digits.js';
import { englishCardinal, englishDecimal } from './english-numbers.js';

/** Symbol (as a regex source) -> [singular, plural]. Matching is case-sensitive: "m" is meters, "M" is not. */
const UNITS: Array<[source: string, singular: string, plural: string]> = [
  ['km/h', 'kilometer per hour', 'kilometers per hour'],
  ['kph', 'kilometer per hour', 'kilometers per hour'],
  ['mph', 'mile per hour', 'miles per hour'],
  ['m/s', 'meter per second', 'meters per second'],
  ['°\\s?C', 'degree Celsius', 'degrees Celsius'],
  ['°\\s?F', 'degree Fahrenheit', 'degrees Fahrenheit'],
  ['°', 'degree', 'degrees'],
  ['km', 'kilometer', 'kilometers'],
  ['cm', 'centimeter', 'centimeters'],
  ['mm', 'millimeter', 'millimeters'],
  ['[µμ]m', 'micrometer', 'micrometers'],
  ['m', 'meter', 'meters'],
  ['mi', 'mile', 'miles'],
  ['ft', 'foot', 'feet'],
  ['yd', 'yard', 'yards'],
  ['kg', 'kilogram', 'kilograms'],
  ['mg', 'milligram', 'milligrams'],
  ['g', 'gram', 'grams'],
  ['lbs?', 'pound', 'pounds'],
  ['oz', 'ounce', 'ounces'],
  ['ml|mL', 'milliliter', 'milliliters'],
  ['l|L', 'liter', 'liters'],
  ['TB', 'terabyte', 'terabytes'],
  ['GB', 'gigabyte', 'gigabytes'],
  ['MB', 'megabyte', 'megabytes'],
  ['[kK]B', 'kilobyte', 'kilobytes'],
  ['GHz', 'gigahertz', 'gigahertz'],
  ['MHz', 'megahertz', 'megahertz'],
  ['kHz', 'kilohertz', 'kilohertz'],
  ['Hz', 'hertz', 'hertz'],
  ['kWh', 'kilowatt hour', 'kilowatt hours'],
  ['kW', 'kilowatt', 'kilowatts'],
  ['W', 'watt', 'watts'],
  ['ms', 'millisecond', 'milliseconds'],
  ['min', 'minute', 'minutes'],
  ['hrs?', 'hour', 'hours'],
  ['h', 'hour', 'hours'],
  ['secs?', 'second', 'seconds'],
  ['s', 'second', 'seconds'],
];

const NUMBER = '((?<![\\p{L}\\p{N}])[-−])?(?<![\\p{N}.,])(\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.(\\d+))?';

/** Longest symbols first so "km/h" is not read as "km" followed by "/h". */
const UNIT_PATTERN = new RegExp(`${NUMBER}\\s?(${UNITS.map(([source]) => `(?:${source})`).join('|')})(?![\\p{L}\\p{N}/])`, 'gu');
const COMPILED = UNITS.map(([source, singular, plural]) => ({ pattern: new RegExp(`^(?:${source})$`, 'u'), singular, plural }));

/** "5 km" -> "five kilometers", "1 kg" -> "one kilogram", "-3°C" -> "minus three degrees Celsius". */
export function expandEnglishUnits(text: string): string {
  return text.replace(
    UNIT_PATTERN,
    (matched, negative: string | undefined, integerText: string, fraction: string | undefined, symbol: string) => {
      const unit = COMPILED.find((u) => u.pattern.test(symbol));
      if (!unit) return matched;
      const integer = removeSeparators(integerText);
      const number = fraction === undefined ? englishCardinal(integer) : englishDecimal(integer, fraction);
      // English uses the singular only for exactly one; "1.5 kilograms", "0 kilograms".
      const one = fraction === undefined && Number(integer) === 1;
      return `${negative ? 'minus ' : ''}${number} ${one ? unit.singular : unit.plural}`;
    },
  );
}
