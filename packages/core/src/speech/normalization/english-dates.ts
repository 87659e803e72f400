import { englishOrdinal, englishYear } from './english-numbers.js';

export const ENGLISH_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** Full names and the usual abbreviations (with an optional period), capitalized only:
 * lower-case "may" and "march" are far more often a verb than a month. */
const MONTH_NAME =
  '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?';

function monthFromName(name: string): string {
  const prefix = name.replace('.', '').slice(0, 3).toLowerCase();
  return ENGLISH_MONTHS.find((m) => m.toLowerCase().startsWith(prefix))!;
}

function isValidDate(month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** Two-digit years are taken as the nearest century: 24 -> 2024, 98 -> 1998. */
function fullYear(year: string): number {
  const n = Number(year);
  if (year.length !== 2) return n;
  return n < 50 ? 2000 + n : 1900 + n;
}

function spokenDate(month: number, day: number, year?: number): string {
  const monthDay = `${ENGLISH_MONTHS[month - 1]} ${englishOrdinal(day)}`;
  return year === undefined ? monthDay : `${monthDay}, ${englishYear(year)}`;
}

/**
 * Dates: ISO 2024-03-15, US 03/15/2024 (day first when the first number cannot be a month,
 * and always with dots: 15.03.2024), "March 15[, 2024]" and "15 March [2024]".
 */
export function expandEnglishDates(text: string): string {
  return text
    .replace(/(?<![\p{N}\-/.])(\d{4})-(\d{1,2})-(\d{1,2})(?![\p{N}\-/])/gu, (matched, y: string, m: string, d: string) =>
      isValidDate(Number(m), Number(d)) ? spokenDate(Number(m), Number(d), Number(y)) : matched,
    )
    .replace(
      /(?<![\p{N}/.])(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})(?![\p{N}/]|\.\d)/gu,
      (matched, a: string, sep: string, b: string, y: string) => {
        // "1.2.30" is far more likely a version number than a date.
        if (sep === '.' && y.length !== 4) return matched;
        const [first, second] = [Number(a), Number(b)];
        const dayFirst = sep === '.' || first > 12;
        const [month, day] = dayFirst ? [second, first] : [first, second];
        return isValidDate(month, day) ? spokenDate(month, day, fullYear(y)) : matched;
      },
    )
    .replace(
      new RegExp(`\\b${MONTH_NAME}\\s+(\\d{1,2})(?:st|nd|rd|th)?(?![\\p{N}:.,]\\d|\\p{L}|\\p{N})(?:,?\\s+(\\d{4})(?!\\p{N}))?`, 'gu'),
      (matched, name: string, d: string, y: string | undefined) => {
        const day = Number(d);
        if (day < 1 || day > 31) return matched;
        const month = ENGLISH_MONTHS.indexOf(monthFromName(name) as (typeof ENGLISH_MONTHS)[number]) + 1;
        return spokenDate(month, day, y === undefined ? undefined : Number(y));
      },
    )
    .replace(
      new RegExp(`(?<![\\p{N}.,])(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_NAME}(?!\\p{L})(?:,?\\s+(\\d{4})(?!\\p{N}))?`, 'gu'),
      (matched, d: string, name: string, y: string | undefined) => {
        const day = Number(d);
        if (day < 1 || day > 31) return matched;
        const spoken = `the ${englishOrdinal(day)} of ${monthFromName(name)}`;
        return y === undefined ? spoken : `${spoken}, ${englishYear(Number(y))}`;
      },
    );
}
