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
  return new InvalidParameterError(`Invalid value for '${param}': ${issue.message}`, param);
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
