import { settlesWithin } from '@svc/adapters-storage';

/** settlesWithin, until a point in time (ms since the epoch) rather than for a duration. */
export function settlesBy(work: Promise<unknown>, deadline: number): Promise<boolean> {
  return settlesWithin(work, deadline - Date.now());
}
