import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { InvalidJsonError, InvalidRequestError, parseCallerJson, PayloadTooLargeError } from '@svc/core';

/**
 * Reads and parses a JSON request body with a byte limit enforced while reading (before any work
 * is done). Wrong content types, malformed JSON and oversize bodies become typed errors.
 */
export async function readJsonBody(
  ctx: Context,
  limitBytes: number,
  options: { allowEmpty?: boolean; orMultipart?: boolean } = {},
): Promise<unknown> {
  const type = ctx.request.type;
  if (type && type !== 'application/json' && !type.endsWith('+json')) {
    const expected = options.orMultipart ? 'application/json or multipart/form-data' : 'application/json';
    throw new InvalidRequestError(`Expected Content-Type ${expected}, got '${type}'.`);
  }
  // The body is read as sent: a compressed one would be parsed as garbage (or, if it happened to be plain, taken on a false label).
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw new InvalidRequestError(`Content-Encoding '${encoding}' is not supported; send the request body uncompressed.`);
  }
  const declared = Number(ctx.get('content-length') || NaN);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: limitBytes, encoding: 'utf8' });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw tooLarge(limitBytes);
    throw err;
  }
  if (text.trim() === '') {
    if (options.allowEmpty) return undefined;
    throw new InvalidJsonError('The request body is empty; a JSON object is required.');
  }
  try {
    return parseCallerJson(text);
  } catch (err) {
    throw new InvalidJsonError(`The request body is not valid JSON: ${(err as Error).message}`);
  }
}

function tooLarge(limitBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The request body exceeds the ${Math.round(limitBytes / 1024)} KiB limit.`);
}
