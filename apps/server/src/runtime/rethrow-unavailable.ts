import { dependencyUnavailable } from '@svc/adapters-storage';

/** An infrastructure failure (the database, Redis) as ServiceUnavailableError; anything else unchanged. */
export function rethrowUnavailable(err: unknown): never {
  throw dependencyUnavailable(err) ?? err;
}
