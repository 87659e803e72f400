/**
 * Base64 without Buffer (the core has no Node dependency). Strict: the alphabet of RFC 4648 with
 * padding, because a silently "repaired" audio chunk would be noise in the user's turn.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

/** Decodes base64; returns null when the text is not valid base64. */
export function decodeBase64(text: string): Uint8Array | null {
  const len = text.length;
  if (len % 4 !== 0) return null;
  if (len === 0) return new Uint8Array(0);
  let padding = 0;
  if (text.charCodeAt(len - 1) === 61) padding++;
  if (text.charCodeAt(len - 2) === 61) padding++;
  const out = new Uint8Array((len / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < len; i += 4) {
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const last = i + 4 === len;
    const c = last && padding === 2 ? 0 : sextet(text, i + 2);
    const d = last && padding >= 1 ? 0 : sextet(text, i + 3);
    if ((a | b | c | d) < 0) return null;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = (n >> 16) & 0xff;
    if (o < out.length) out[o++] = (n >> 8) & 0xff;
    if (o < out.length) out[o++] = n & 0xff;
  }
  return out;
}

function sextet(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code < 128 ? DECODE[code]! : -1;
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
