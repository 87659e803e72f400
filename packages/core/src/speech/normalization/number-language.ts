import type { UnitTable } from './unit-words.js';

/** Grammatical gender of the noun a number counts; decides "un/une", "uno/una", "um/uma". */
export type Gender = 'm' | 'f';

export interface CurrencyWords {
  major: [singular: string, plural: string];
  minor: [singular: string, plural: string] | null;
  gender: Gender;
  minorGender: Gender;
}

/**
 * What the shared normalizer (localized.ts) needs to know about a language other than English:
 * its number speller and the few words that travel with numbers.
 */
export interface NumberLanguage {
  /** An integer as a digit string (no sign, no separators) in words. */
  cardinal(digits: string): string;
  /** The form used in front of a noun: "un euro", "ein Euro", "veintiún euros", "uma libra". */
  cardinalBeforeNoun(digits: string, gender: Gender): string;
  /** Words between a round large number and its noun: "un million d'euros", "un millón de euros". */
  nounLink(numberWords: string, noun: string): string;
  /** A clock time ("15:30") in words. */
  clock(hours: number, minutes: number): string;
  /** Words for 0-9, for reading fraction digits and IDs one by one. */
  digitWords: readonly string[];
  minus: string;
  /** The spoken decimal separator ("virgule", "Komma"). */
  decimalWord: string;
  /** Whether "3,14" is read "trois virgule quatorze" (true) or digit by digit (false). */
  fractionAsNumber: boolean;
  percent: string;
  /** Joins the major and minor amounts: "cinq euros et cinquante centimes". */
  minorJoiner: string;
  /** Currency symbols and ISO codes. */
  currencies: Record<string, CurrencyWords>;
  /** "&", "+", "=", "@" in words. */
  symbols: Record<string, string>;
  /** Unit symbols after a number ("31,5 °C", "5 km") in words. */
  units: UnitTable;
  /** French reads a unit in the singular below two ("1,5 kilomètre"); the others only for exactly one. */
  unitSingularBelowTwo?: boolean;
  /** Joins a number to the noun it counts where the language elides ("una ora" -> "un'ora"). */
  elide?: (phrase: string) => string;
}

export function currency(
  major: [string, string],
  minor: [string, string] | null,
  gender: Gender = 'm',
  minorGender: Gender = 'm',
): CurrencyWords {
  return { major, minor, gender, minorGender };
}
