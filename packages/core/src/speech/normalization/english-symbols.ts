/**
 * Symbols a synthesizer would skip or read oddly, as words. Runs last, after numbers, so
 * "%" here is only a stray one (numbers with "%" are already "N percent").
 */
const SYMBOLS: Array<[RegExp, string]> = [
  [/\s*&\s*/g, ' and '],
  [/\s*\+\s*/g, ' plus '],
  [/\s*=\s*/g, ' equals '],
  [/\s*@\s*/g, ' at '],
  [/\s*%/g, ' percent'],
  [/\s*×\s*/g, ' times '],
  [/\s*°/g, ' degrees'],
];

export function expandEnglishSymbols(text: string): string {
  let out = text;
  for (const [pattern, words] of SYMBOLS) out = out.replace(pattern, words);
  return out;
}
