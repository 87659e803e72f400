import { ServiceError } from '../shared/errors.js';

/**
 * Media inputs (reference audio now, reference images and driving audio later) fail in ways a caller
 * can act on; each failure has its own identifier so clients can tell them apart.
 */

/** An inline payload (base64 / data URI / uploaded file) or a download exceeded its byte cap. */
export class MediaTooLargeError extends ServiceError {
  readonly identifier = 'media_too_large';
  constructor(param: string, limitBytes: number, what = 'payload', hint?: string) {
    super(`'${param}': the ${what} exceeds the limit of ${formatMegabytes(limitBytes)}${hint ? ` (${hint})` : ''}.`, param);
  }
}

/** The URL points somewhere the server refuses to connect to (private network, metadata service...). */
export class MediaUrlNotAllowedError extends ServiceError {
  readonly identifier = 'media_url_not_allowed';
}

/** The remote server did not deliver the media within the time limit. */
export class MediaFetchTimeoutError extends ServiceError {
  readonly identifier = 'media_fetch_timeout';
  constructor(param: string, timeoutMs: number) {
    super(`'${param}': the media URL did not respond within ${timeoutMs} ms.`, param);
  }
}

/** Base64 or a data URI that does not decode. */
export class InvalidInlineMediaError extends ServiceError {
  readonly identifier = 'invalid_base64';
}

/** Zero bytes: nothing to decode. */
export class EmptyMediaError extends ServiceError {
  readonly identifier = 'media_empty';
  constructor(param: string) {
    super(`'${param}' is empty.`, param);
  }
}

function formatMegabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB` : `${bytes} bytes`;
}
