import { invalidRequest } from './realtime-error.js';

/**
 * Small type guards for JSON coming off the wire. Each failure names the parameter path
 * (`session.audio.input.format.rate`) so a client can tell exactly what was wrong.
 */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function expectObject(value: unknown, param: string): JsonObject {
  if (!isObject(value)) throw invalidRequest('invalid_type', `'${param}' must be an object.`, param);
  return value;
}

export function expectString(value: unknown, param: string): string {
  if (typeof value !== 'string') throw invalidRequest('invalid_type', `'${param}' must be a string.`, param);
  return value;
}

/**
 * A string of at most `maxChars` characters (code points); longer: `string_above_max_length`, the
 * code the modelled API gives an over-long string.
 */
export function expectBoundedString(value: unknown, param: string, maxChars: number): string {
  const text = expectString(value, param);
  // Cheap first: UTF-16 units are never fewer than code points.
  if (text.length > maxChars && [...text].length > maxChars) {
    throw invalidRequest('string_above_max_length', `'${param}' must be at most ${maxChars} characters (got ${[...text].length}).`, param);
  }
  return text;
}

export function expectNumber(value: unknown, param: string, min?: number, max?: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw invalidRequest('invalid_type', `'${param}' must be a number.`, param);
  }
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
    throw invalidRequest('invalid_value', `'${param}' must be ${rangeText(min, max)}.`, param);
  }
  return value;
}

/** The bound(s) a number broke, in words (only the bounds that exist). */
function rangeText(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max}`;
  return min !== undefined ? `at least ${min}` : `at most ${max}`;
}

export function expectInteger(value: unknown, param: string, min?: number, max?: number): number {
  const n = expectNumber(value, param, min, max);
  if (!Number.isInteger(n)) throw invalidRequest('invalid_type', `'${param}' must be an integer.`, param);
  return n;
}

export function expectBoolean(value: unknown, param: string): boolean {
  if (typeof value !== 'boolean') throw invalidRequest('invalid_type', `'${param}' must be a boolean.`, param);
  return value;
}

export function expectArray(value: unknown, param: string): unknown[] {
  if (!Array.isArray(value)) throw invalidRequest('invalid_type', `'${param}' must be an array.`, param);
  return value;
}

export function requireField(obj: JsonObject, key: string, param: string): unknown {
  if (obj[key] === undefined) {
    throw invalidRequest('missing_required_parameter', `Missing required parameter: '${param}'.`, param);
  }
  return obj[key];
}

export function rejectUnknownKeys(obj: JsonObject, allowed: readonly string[], prefix: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      const param = prefix ? `${prefix}.${key}` : key;
      throw invalidRequest('unknown_parameter', `Unknown parameter: '${param}'.`, param);
    }
  }
}

export function oneOf<T extends string>(value: unknown, allowed: readonly T[], param: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalidRequest(
      'invalid_value',
      `Invalid value for '${param}': ${JSON.stringify(value)}; supported values are ${allowed.map((a) => `'${a}'`).join(', ')}.`,
      param,
    );
  }
  return value as T;
}
