/** Helpers shared by every language's number speller. Numbers travel as digit strings so that
 * long amounts (IDs, 20-digit totals) never lose precision through floating point. */

/** Drops leading zeros but keeps a single "0". */
export function stripLeadingZeros(digits: string): string {
  const stripped = digits.replace(/^0+/, '');
  return stripped === '' ? '0' : stripped;
}

/** Splits a digit string into groups of `size` counted from the right, most significant first. */
export function digitGroups(digits: string, size: number): number[] {
  const groups: number[] = [];
  for (let end = digits.length; end > 0; end -= size) {
    groups.unshift(Number(digits.slice(Math.max(0, end - size), end)));
  }
  return groups;
}

/** Reads each digit on its own ("2024" -> "two zero two four"), for IDs and fraction digits. */
export function spellDigits(digits: string, digitWords: readonly string[]): string {
  return [...digits].map((d) => digitWords[Number(d)]!).join(' ');
}

/** Removes thousands separators of any kind (",", ".", spaces) from a matched number. */
export function removeSeparators(text: string): string {
  return text.replace(/[^0-9]/g, '');
}
