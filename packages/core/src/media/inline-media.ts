import { decodeBase64 } from '../shared/base64.js';
import { InvalidMediaUrlError } from '../shared/errors.js';
import { EmptyMediaError, InvalidInlineMediaError, MediaTooLargeError } from './errors.js';

/** What a string media reference is, decided from its syntax alone. */
export type MediaReference = { kind: 'url'; url: string } | { kind: 'inline'; base64: string; mediaType: string | null };

/**
 * Classifies a media string: `http(s)://...` is a URL, `data:...;base64,...` a data URI, any other
 * `scheme:` is refused (file:, ftp:, gopher: ... must never reach a fetcher), the rest is base64.
 * Base64 never contains ':', so the rule is unambiguous.
 */
export function parseMediaReference(value: string, param: string): MediaReference {
  const trimmed = value.trim();
  if (trimmed === '') throw new EmptyMediaError(param);
  if (/^https?:\/\//i.test(trimmed)) return { kind: 'url', url: trimmed };
  if (/^data:/i.test(trimmed)) {
    const comma = trimmed.indexOf(',');
    if (comma < 0) throw new InvalidInlineMediaError(`'${param}' is a data URI without a ',' before its payload.`, param);
    const header = trimmed
      .slice(5, comma)
      .split(';')
      .map((p) => p.trim().toLowerCase());
    if (!header.includes('base64')) {
      throw new InvalidInlineMediaError(`'${param}' data URIs must be base64-encoded (data:<type>;base64,...).`, param);
    }
    return { kind: 'inline', base64: trimmed.slice(comma + 1), mediaType: header[0] || null };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed);
  if (scheme) {
    throw new InvalidMediaUrlError(
      `'${param}': the '${scheme[1]!.toLowerCase()}:' scheme is not supported; use an http(s) URL, a data URI or base64 bytes.`,
      param,
    );
  }
  return { kind: 'inline', base64: trimmed, mediaType: null };
}

/**
 * Decodes inline base64 after checking the size of the encoded text, so an oversize payload is
 * refused before any memory is spent on decoding it. Accepts standard and URL-safe alphabets,
 * with or without padding, ignoring whitespace (line-wrapped base64 is common).
 */
export function decodeInlineMedia(base64: string, param: string, maxChars: number): Uint8Array {
  if (base64.length > maxChars) {
    throw new MediaTooLargeError(
      param,
      maxChars,
      'inline (base64 or data URI) text',
      'about 7.5 MB of audio once decoded; send larger files as multipart or by URL',
    );
  }
  const bytes = decodeBase64(base64.replace(/\s+/g, ''), { urlSafe: true, requirePadding: false });
  if (!bytes) throw new InvalidInlineMediaError(`'${param}' is neither an http(s) URL, a data URI nor valid base64.`, param);
  return bytes;
}
