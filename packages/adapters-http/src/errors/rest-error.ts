import { ServiceError, toServiceError } from '@svc/core';
import { HttpLibraryError } from './http-status.js';

/**
 * The REST error body. The spec fixes `{error: {message, type}}`; the identifier (e.g.
 * `input_too_long`) is in `type` and repeated in `code` for clients written against APIs that read
 * `code`; `param` names the offending field when there is one.
 */
export interface RestErrorBody {
  error: { message: string; type: string; code: string; param: string | null };
}

export function restErrorBody(err: ServiceError): RestErrorBody {
  const message = err.serverFault ? withoutInternals(err.message) : err.message;
  return { error: { message, type: err.identifier, code: err.identifier, param: err.param } };
}

/**
 * A last guard for server errors whose message was built from a lower layer's text: file paths
 * and stack frames never leave the server (the full error is logged by the error middleware).
 */
export function withoutInternals(message: string): string {
  return message
    .split('\n')
    .filter((line) => !/^\s*at\s/.test(line))
    .join(' ')
    .replace(/'?(?<![\w:/.])\/(?:[\w.@+-]+\/)+[\w.@+-]*'?/g, '(a server file)')
    .trim();
}

/** Errors thrown by Koa/raw-body/http-errors carry `status` and `expose`; keep their meaning. */
export function fromHttpLibraryError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as { status?: number; statusCode?: number; type?: string; expose?: boolean; message?: string };
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpLibraryError(libraryIdentifier(status, e.type), status, e.expose && e.message ? e.message : defaultMessage(status));
  }
  return toServiceError(err);
}

function libraryIdentifier(status: number, type?: string): string {
  if (status === 413 || type === 'entity.too.large') return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 400 && type === 'request.aborted') return 'request_aborted';
  if (status === 404) return 'not_found';
  if (status === 405) return 'method_not_allowed';
  return 'invalid_request_error';
}

function defaultMessage(status: number): string {
  if (status === 413) return 'The request body is too large.';
  if (status === 404) return 'Not found.';
  if (status === 405) return 'Method not allowed.';
  return 'Invalid request.';
}
