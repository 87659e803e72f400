import busboy from 'busboy';
import type { Context } from 'koa';
import { InvalidParameterError, InvalidRequestError, MediaTooLargeError, PayloadTooLargeError, UnknownParameterError } from '@svc/core';

export interface UploadedFile {
  bytes: Uint8Array;
  filename: string;
  /** As the client claimed it; never trusted for decoding (content decides). */
  mimeType: string;
}

export interface MultipartForm {
  fields: Record<string, string>;
  /** Every value of a `repeatable` field, in order (e.g. `timestamp_granularities[]`). */
  lists: Record<string, string[]>;
  files: Record<string, UploadedFile>;
}

export interface MultipartRules {
  /** Names that may appear as text fields or file parts (anything else is an unknown parameter). */
  allowed: readonly string[];
  /** Max bytes of one uploaded file (the spec's inline cap: 10 MB). */
  maxFileBytes: number;
  /** Max bytes of one text field (a base64 `ref_audio` string may be sent as a field); over it: 413. */
  maxFieldBytes: number;
  /**
   * Text fields whose size is a documented rule of the field itself (a transcription `prompt`):
   * over it is a 400 `invalid_parameter` naming the field, not a 413.
   */
  fieldLimits?: Readonly<Record<string, number>>;
  /**
   * Max bytes of the whole body as it arrives: parts, headers, and anything before the first or
   * after the last boundary (busboy reads and discards those, so the part limits never see them).
   */
  maxBodyBytes: number;
  /** Text fields that may be sent more than once (each at most MAX_REPEATS times). */
  repeatable?: readonly string[];
}

const MAX_REPEATS = 8;

/**
 * Reads a multipart/form-data body with busboy, with limits enforced while the body streams in:
 * an oversize file, field or whole body stops the upload with 413, unknown or repeated names are
 * refused, at most one part per allowed name is accepted, and a body cut off inside a part (no
 * closing boundary) is a 400: every stream busboy hands out has an 'error' listener, since an
 * unhandled one would end the process.
 */
export function readMultipartForm(ctx: Context, rules: MultipartRules): Promise<MultipartForm> {
  return new Promise((resolve, reject) => {
    const declared = Number(ctx.get('content-length') || NaN);
    if (Number.isFinite(declared) && declared > rules.maxBodyBytes) {
      reject(bodyTooLarge(rules.maxBodyBytes));
      return;
    }
    const repeatable = rules.repeatable ?? [];
    const fieldLimits = rules.fieldLimits ?? {};
    // busboy flags a value as truncated once it REACHES its limit: one byte more tells a value of
    // exactly the limit (accepted) from a longer one.
    const fieldSize = Math.max(rules.maxFieldBytes, ...Object.values(fieldLimits)) + 1;
    const oversized = (name: string, value: string, truncated: boolean): Error | null => {
      const limit = fieldLimits[name] ?? rules.maxFieldBytes;
      if (!truncated && Buffer.byteLength(value) <= limit) return null;
      return name in fieldLimits
        ? new InvalidParameterError(`'${name}' is longer than ${limit} bytes (UTF-8); shorten it.`, name)
        : new MediaTooLargeError(name, rules.maxFieldBytes, 'form field');
    };
    const repeats = repeatable.length * (MAX_REPEATS - 1);
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        limits: {
          fileSize: rules.maxFileBytes,
          fieldSize,
          files: rules.allowed.length,
          fields: rules.allowed.length + repeats,
          // busboy reports `partsLimit` on reaching the count (files/fields: on exceeding it).
          parts: rules.allowed.length + repeats + 1,
          fieldNameSize: 100,
        },
      });
    } catch (err) {
      reject(new InvalidRequestError(`Malformed multipart/form-data request: ${(err as Error).message}`));
      return;
    }
    const form: MultipartForm = { fields: {}, files: {}, lists: {} };
    const seen = new Set<string>();
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(parser);
      ctx.req.resume(); // drain the rest so the error response can still be written
      reject(err);
    };
    const accept = (name: string): boolean => {
      if (!rules.allowed.includes(name)) return (fail(new UnknownParameterError(name)), false);
      if (seen.has(name)) return (fail(new InvalidParameterError(`'${name}' was sent more than once.`, name)), false);
      seen.add(name);
      return true;
    };

    parser.on('field', (name, value, info) => {
      if (failed) return;
      if (repeatable.includes(name)) {
        const list = (form.lists[name] ??= []);
        if (list.length >= MAX_REPEATS) return fail(new InvalidParameterError(`'${name}' was sent more than ${MAX_REPEATS} times.`, name));
        const tooLarge = oversized(name, value, info.valueTruncated);
        if (tooLarge) return fail(tooLarge);
        list.push(value);
        form.fields[name] ??= value;
        return;
      }
      if (!accept(name)) return;
      const tooLarge = oversized(name, value, info.valueTruncated);
      if (tooLarge) return fail(tooLarge);
      form.fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      // busboy destroys the part's stream with "Unexpected end of form" when the body ends inside it.
      stream.on('error', (err: Error) => fail(malformed(err)));
      if (failed || !accept(name)) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let total = 0;
      stream.on('data', (chunk: Buffer) => {
        total += chunk.length;
        chunks.push(chunk);
      });
      stream.on('limit', () => fail(new MediaTooLargeError(name, rules.maxFileBytes, 'uploaded file')));
      stream.on('end', () => {
        if (failed) return;
        const joined = Buffer.concat(chunks, total);
        form.files[name] = {
          bytes: new Uint8Array(joined.buffer, joined.byteOffset, joined.byteLength),
          filename: info.filename ?? '',
          mimeType: info.mimeType,
        };
      });
    });
    parser.on('partsLimit', () => fail(new PayloadTooLargeError('Too many parts in the multipart/form-data body.')));
    parser.on('filesLimit', () => fail(new PayloadTooLargeError('Too many files in the multipart/form-data body.')));
    parser.on('fieldsLimit', () => fail(new PayloadTooLargeError('Too many fields in the multipart/form-data body.')));
    parser.on('error', (err: Error) => fail(malformed(err)));
    parser.on('close', () => {
      if (!failed) resolve(form);
    });
    ctx.req.on('error', (err) => fail(err));
    let received = 0;
    ctx.req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > rules.maxBodyBytes) fail(bodyTooLarge(rules.maxBodyBytes));
    });
    ctx.req.pipe(parser);
  });
}

function malformed(err: Error): InvalidRequestError {
  return new InvalidRequestError(`Malformed multipart/form-data body: ${err.message}.`);
}

function bodyTooLarge(limitBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The multipart/form-data body exceeds the ${Math.round(limitBytes / 1024)} KiB limit.`);
}

export function isMultipart(ctx: Context): boolean {
  return ctx.request.is('multipart/form-data') === 'multipart/form-data';
}
