import { ServiceError, ServiceUnavailableError } from '@svc/core';

/** A Redis failure as the service's 503 / 1013 "retry later" (the original kept as `cause` for the log). */
export function unavailable(err: unknown, dependency = 'redis'): ServiceUnavailableError {
  if (err instanceof ServiceUnavailableError) return err;
  const e = new ServiceUnavailableError(dependency);
  (e as { cause?: unknown }).cause = err;
  return e;
}

/** Connection-level failures of the pg driver and TypeORM (not a query's own error: a constraint, a syntax error). */
const DATABASE_DOWN = [
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH/,
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /terminating connection due to administrator command/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /Client has encountered a connection error and is not queryable/i,
  /Cannot use a pool after calling end/i,
  /Query read timeout/i,
  /canceling statement due to statement timeout/i,
];
/** SQLSTATE classes of an unreachable or restarting server: 08 connection exception, 57P admin shutdown / cannot connect now. */
const DATABASE_DOWN_CODES = /^(08|57P0[1-3])/;

/** ioredis: the client is not connected (fail-fast mode), gave up on this command, or had no answer in time (commandTimeout). */
const REDIS_DOWN = [
  /Stream isn't writeable/i,
  /Connection is closed/i,
  /Reached the max retries per request limit/i,
  /enableOfflineQueue/i,
  /Command timed out/,
];

/**
 * The failure of a dependency that does not answer, as ServiceUnavailableError (database or redis);
 * null for anything else (a bug, a bad query), which stays a 500. The HTTP layer and the realtime
 * gateway use it so an outage reads as "503 / retry later", never as a generic 500 or a hang.
 * An error the service already classified where it arose (a ServiceError: a media URL whose host
 * refused the connection is the caller's `media_fetch_failed`, whatever its message says) is never
 * reclassified: the patterns below are for the drivers' untyped failures only.
 */
export function dependencyUnavailable(err: unknown): ServiceUnavailableError | null {
  if (err instanceof ServiceUnavailableError) return err;
  if (err instanceof ServiceError) return null;
  if (!err || typeof err !== 'object') return null;
  const e = err as { message?: unknown; code?: unknown; name?: unknown; driverError?: unknown; cause?: unknown };
  const text = `${String(e.message ?? '')} ${String(e.code ?? '')}`;
  const redisError = typeof e.name === 'string' && /^(MaxRetriesPerRequestError|ConnectionError)$/.test(e.name);
  if (redisError || REDIS_DOWN.some((re) => re.test(text))) return unavailable(err, 'redis');
  if (typeof e.code === 'string' && DATABASE_DOWN_CODES.test(e.code)) return unavailable(err, 'database');
  if (DATABASE_DOWN.some((re) => re.test(text))) return unavailable(err, 'database');
  // TypeORM wraps the driver's error (QueryFailedError.driverError).
  if (e.driverError && e.driverError !== err) return dependencyUnavailable(e.driverError);
  if (e.cause && e.cause !== err) return dependencyUnavailable(e.cause);
  return null;
}
