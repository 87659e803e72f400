/** Text made safe for espeak's SSML parser, with a map back to the original. */
export interface EscapedText {
  text: string;
  /** For each code point of `text`, the index of the code point of the original it came from. */
  origin: number[];
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * espeak-ng always parses its input as SSML: a bare `<` starts a tag (the rest of the sentence is
 * lost) and `&` starts an entity. Escaping them keeps plain text plain. espeak reports word
 * positions in code points of the escaped text, hence the origin map.
 */
export function escapeForSsml(original: string): EscapedText {
  let text = '';
  const origin: number[] = [];
  let index = 0;
  for (const ch of original) {
    const replacement = ENTITIES[ch] ?? ch;
    text += replacement;
    for (let k = 0; k < [...replacement].length; k++) origin.push(index);
    index++;
  }
  return { text, origin };
}
