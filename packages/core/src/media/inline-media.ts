import { decodeBase64 } from '../shared/base64.js';
import { InvalidMediaUrlError } from '../shared/errors.js';
import { EmptyMediaError, InvalidInlineMediaError, MediaTooLargeError } from './errors.js';
import type { MediaFetchOptions, MediaInput } from './media-fetcher.js';

/** What a string media reference is, decided from its syntax alone. */
export type MediaReference = { kind: 'url'; url: string } | { kind: 'inline'; base64: string; mediaType: string | null };

const HTTP_URL = /^https?:\/\//i;

/** Whether a media input is an http(s) URL: what the server would download (parseMediaReference's `url`). */
export function isMediaUrl(input: MediaInput): boolean {
  return typeof input === 'string' && HTTP_URL.test(input.trim());
}

/**
 * Classifies a media string: `http(s)://...` is a URL, `data:...;base64,...` a data URI, any other
 * `scheme:` is refused (file:, ftp:, gopher: ... must never reach a fetcher), the rest is base64.
 * Base64 never contains ':', so the rule is unambiguous.
 */
export function parseMediaReference(value: string, param: string): MediaReference {
  const trimmed = value.trim();
  if (trimmed === '') throw new EmptyMediaError(param);
  if (HTTP_URL.test(trimmed)) return { kind: 'url', url: trimmed };
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
 * with or without padding, ignoring whitespace (line-wrapped base64 is common). `advice` shapes the
 * size error's hint: the kind of media it names, and whether a multipart upload is an alternative.
 */
export function decodeInlineMedia(
  base64: string,
  param: string,
  maxChars: number,
  advice: Pick<MediaFetchOptions, 'kind' | 'uploadable'> = {},
): Uint8Array {
  if (base64.length > maxChars) {
    const noun = advice.kind ?? 'media';
    const larger = advice.kind === 'image' ? 'images' : advice.kind === 'audio' ? 'audio files' : 'files';
    throw new MediaTooLargeError(
      param,
      maxChars,
      'inline (base64 or data URI) text',
      `about ${approximateSize(Math.floor((maxChars * 3) / 4))} of ${noun} once decoded; send larger ${larger} ${advice.uploadable ? 'as multipart or by URL' : 'by URL'}`,
    );
  }
  const bytes = decodeBase64(base64.replace(/\s+/g, ''), { urlSafe: true, requirePadding: false });
  if (!bytes) throw new InvalidInlineMediaError(`'${param}' is neither an http(s) URL, a data URI nor valid base64.`, param);
  return bytes;
}

/** Bytes as a reader would say them: "7.5 MB" from a megabyte up, exact bytes below. */
function approximateSize(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Number(mb.toFixed(1))} MB` : `${bytes} bytes`;
}
