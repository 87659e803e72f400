import type { z } from 'zod';
import { InvalidParameterError, InvalidRequestError, MissingParameterError, UnknownParameterError, type ServiceError } from '@svc/core';

/**
 * Validates a request against its zod schema (the same schema the OpenAPI document is generated
 * from) and turns the first problem into the matching typed error.
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidRequestError('The request body must be a JSON object.');
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw issueToError(result.error.issues[0]!, value);
}

export function issueToError(issue: z.core.$ZodIssue, value: unknown): ServiceError {
  const param = issue.path.map(String).join('.') || null;
  if (issue.code === 'unrecognized_keys') {
    const prefix = param ? `${param}.` : '';
    return new UnknownParameterError(`${prefix}${issue.keys[0]}`);
  }
  if (issue.code === 'invalid_type' && param && valueAt(value, issue.path) === undefined) {
    return new MissingParameterError(param);
  }
  if (issue.code === 'invalid_type') {
    return new InvalidParameterError(`Invalid type for '${param}': expected ${issue.expected}.`, param);
  }
  if (issue.code === 'invalid_value') {
    const allowed = issue.values.map((v) => JSON.stringify(v)).join(', ');
    return new InvalidParameterError(`Invalid value for '${param}': expected one of ${allowed}.`, param);
  }
  if (issue.code === 'invalid_union' && param) {
    // A branch that got inside the value says what is wrong there ("voice": {} lacks 'voice.id');
    // else the value fits no branch's type, and those types are what the caller can send.
    const deeper = issue.errors.map((branch) => branch[0]).find((first) => first !== undefined && first.path.length > 0);
    if (deeper) return issueToError({ ...deeper, path: [...issue.path, ...deeper.path] }, value);
    const expected = [...new Set(issue.errors.flatMap((branch) => branch.flatMap((i) => (i.code === 'invalid_type' ? [i.expected] : []))))];
    if (expected.length > 0) return new InvalidParameterError(`Invalid type for '${param}': expected ${expected.join(' or ')}.`, param);
  }
  if ((issue.code === 'too_small' || issue.code === 'too_big') && param) {
    const bound = boundText(issue);
    if (bound) return new InvalidParameterError(`'${param}' must ${bound}.`, param);
  }
  return new InvalidParameterError(`Invalid value for '${param}': ${issue.message}`, param);
}

/**
 * A broken bound in the words of the service's own messages ("be at least 1", "be at most 4
 * characters long"), not zod's ("Too small: expected number to be >=1"); null for a kind of value
 * without such words (zod's message is used then).
 */
function boundText(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string | null {
  const small = issue.code === 'too_small';
  const limit = String(small ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive !== false;
  if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint') {
    if (issue.exact) return `be ${limit}`;
    return `be ${small ? (inclusive ? 'at least' : 'greater than') : inclusive ? 'at most' : 'less than'} ${limit}`;
  }
  const counted = issue.origin === 'string' ? 'character' : issue.origin === 'array' || issue.origin === 'set' ? 'item' : null;
  if (!counted) return null;
  const count = `${limit} ${counted}${limit === '1' ? '' : 's'}`;
  const how = issue.exact ? 'exactly' : small ? (inclusive ? 'at least' : 'more than') : inclusive ? 'at most' : 'fewer than';
  return counted === 'character' ? `be ${how} ${count} long` : `have ${how} ${count}`;
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
