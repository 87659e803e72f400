import { expandEnglishAbbreviations } from './english-abbreviations.js';
import { expandEnglishCurrency } from './english-currency.js';
import { expandEnglishDates } from './english-dates.js';
import {
  expandCardinals,
  expandDecades,
  expandFractions,
  expandOrdinals,
  expandPercentages,
  expandYears,
} from './english-number-expressions.js';
import { expandEnglishSymbols } from './english-symbols.js';
import { expandEnglishTimes } from './english-times.js';
import { expandEnglishUnits } from './english-units.js';
import { tidyWhitespace } from './whitespace.js';

/**
 * The order matters: each step consumes the digits it understands, so the most specific
 * shapes (dates, times, money) go first and plain cardinals last.
 */
const STEPS: Array<(text: string) => string> = [
  expandEnglishDates,
  expandEnglishTimes,
  expandEnglishAbbreviations,
  expandEnglishCurrency,
  expandPercentages,
  expandDecades,
  expandEnglishUnits,
  expandYears,
  expandOrdinals,
  expandFractions,
  expandCardinals,
  expandEnglishSymbols,
  tidyWhitespace,
];

export function normalizeEnglish(text: string): string {
  return STEPS.reduce((current, step) => step(current), text);
}
