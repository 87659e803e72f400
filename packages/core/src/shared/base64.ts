/**
 * Base64 without Buffer or atob, so the core runs anywhere. One decoder, two strictness levels:
 * realtime audio chunks must be exact RFC 4648 (a "repaired" chunk would be noise in the user's
 * turn), while uploaded media may be URL-safe, unpadded or line-wrapped.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const STANDARD = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) STANDARD[ALPHABET.charCodeAt(i)] = i;
const URL_SAFE = STANDARD.slice();
URL_SAFE['-'.charCodeAt(0)] = 62;
URL_SAFE['_'.charCodeAt(0)] = 63;

export interface Base64Options {
  /** Accept `-` and `_` (RFC 4648 section 5) besides `+` and `/`. */
  urlSafe?: boolean;
  /** Require `=` padding to a multiple of 4 characters (strict RFC 4648). Default true. */
  requirePadding?: boolean;
}

/** Decodes base64; null when the text is not valid under the options. Whitespace is not skipped. */
export function decodeBase64(text: string, options: Base64Options = {}): Uint8Array | null {
  const table = options.urlSafe ? URL_SAFE : STANDARD;
  const requirePadding = options.requirePadding ?? true;
  if (requirePadding && text.length % 4 !== 0) return null;
  let end = text.length;
  while (end > 0 && end > text.length - 2 && text.charCodeAt(end - 1) === 61) end--;
  const rest = end % 4;
  if (rest === 1) return null;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let o = 0;
  for (let i = 0; i < end; i += 4) {
    const chars = Math.min(4, end - i);
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const value = k < chars ? sextet(text, i + k, table) : 0;
      if (value < 0) return null;
      n = (n << 6) | value;
    }
    out[o++] = (n >> 16) & 0xff;
    if (chars > 2) out[o++] = (n >> 8) & 0xff;
    if (chars > 3) out[o++] = n & 0xff;
  }
  return out;
}

function sextet(text: string, i: number, table: Int16Array): number {
  const code = text.charCodeAt(i);
  return code < 128 ? table[code]! : -1;
}

export function encodeBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    chunk +=
      ALPHABET[(n >> 18) & 63]! +
      ALPHABET[(n >> 12) & 63]! +
      (i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63]! : '=') +
      (i + 2 < bytes.length ? ALPHABET[n & 63]! : '=');
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  parts.push(chunk);
  return parts.join('');
}
