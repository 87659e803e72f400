/**
 * Expansions insert and remove words, leaving doubled spaces and " ," behind. Newlines are kept
 * because the sentence splitter treats them as boundaries.
 */
export function tidyWhitespace(text: string): string {
  return text
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/ +([,.;:!?])/g, '$1')
    .trim();
}
