/**
 * Expanding "etc." or "p.m." swallows a period that may also have ended the sentence. The sentence
 * splitter runs after normalization, so that period must survive when the sentence really ends
 * there: at the end of the text, or when the next word starts with a capital letter.
 */
export function endsSentence(textAfter: string): boolean {
  return /^\s*$/.test(textAfter) || /^\s+["“‘(]?\p{Lu}/u.test(textAfter);
}

/** `replacement`, plus "." when the swallowed period was probably a sentence end. */
export function keepSentencePeriod(replacement: string, matched: string, textAfter: string): string {
  return matched.endsWith('.') && endsSentence(textAfter) ? `${replacement}.` : replacement;
}
