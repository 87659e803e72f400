/**
 * How deep arrays and objects may nest in JSON a caller sends (a body, a WebSocket or data channel
 * event, a Wyoming header). No request of the API needs a tenth of it (a tool's parameter schema
 * is the deepest, a dozen levels); the point is what lies beyond: JSON.parse spends about a
 * microsecond per level, so an 11 MB body of `[[[[...` held the event loop, and with it every
 * request and realtime session of the process, for 5 to 13 s, and a 2 MB WebSocket event of them
 * for about a second each; and values nested that deep overflow the stack of whatever walks them
 * afterwards (the realtime session's copy of a tool's parameters answered `internal_error`).
 */
export const MAX_JSON_DEPTH = 128;

/**
 * JSON.parse for text a caller sent: nesting deeper than `maxDepth` is refused before parsing, in
 * one pass that jumps over strings (a 10 MB base64 string costs a few milliseconds), with the
 * SyntaxError JSON.parse would throw, so every caller reports it the way it reports bad JSON.
 */
export function parseCallerJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (nestsDeeperThan(text, maxDepth)) {
    throw new SyntaxError(`arrays and objects are nested more than ${maxDepth} levels deep, the limit`);
  }
  return JSON.parse(text);
}

/** True when `text` opens more than `maxDepth` arrays or objects inside one another (strings are skipped). */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i + 1);
      // An unterminated string: JSON.parse reports it, and nothing after it can nest.
      if (i < 0) return false;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Index of the quote that ends the string opened before `from` (one preceded by an even run of backslashes), or -1. */
function closingQuote(text: string, from: number): number {
  for (let j = text.indexOf('"', from); j >= 0; j = text.indexOf('"', j + 1)) {
    let backslashes = 0;
    for (let k = j - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
  }
  return -1;
}
