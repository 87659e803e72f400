import { InMemorySessionRegistry, RealtimeAdmission, type AdmittedSession, type Clock, type Logger } from '@svc/core';
import type { GatewayEnding } from './close-codes.js';
import { creditConnection } from './credit.js';
import type { Credentials } from './credentials.js';
import type { RealtimeGatewayDeps, RealtimeGatewayOptions } from './gateway-types.js';

/** A refusal the gateway closes with (its close code is in CLOSE_CODES). */
export type GatewayRefusal = Extract<
  GatewayEnding,
  'invalid_credentials' | 'duplicate_session' | 'at_capacity' | 'over_capacity' | 'flood_cooldown' | 'dependency_unavailable'
>;

/** What the gateway decided before the upgrade: refused (with its close) or admitted. */
export type GatewayAdmission = { refused: GatewayRefusal; reason?: string } | { refused: null; session: AdmittedSession };

export const REFUSAL_REASONS: Readonly<Record<GatewayRefusal, string>> = {
  invalid_credentials: 'invalid API key or ephemeral key',
  duplicate_session: 'a session is already active for this ephemeral key',
  at_capacity: 'max concurrency exceeded; retry later',
  over_capacity: 'server at capacity; retry later',
  flood_cooldown: 'the last session of this key sent more than its inbound budget; retry later',
  dependency_unavailable: 'the service is temporarily unavailable; retry later',
};

/** The gateway's own timers, for an admission it made itself (a gateway used without the application). */
const timerClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};

/**
 * The admission the gateway uses: the application's (shared with the other transports, its
 * revocation watch started by the application), or, used on its own, one over `options.registry`
 * (default: this process's counts) whose revocation watch the gateway runs. Returns it with the
 * stop of what the gateway started.
 */
export function gatewayAdmission(
  deps: RealtimeGatewayDeps,
  options: RealtimeGatewayOptions,
  logger: Logger,
): { admission: RealtimeAdmission; stop: () => void } {
  if (options.admission) return { admission: options.admission, stop: () => undefined };
  const registry =
    options.registry ?? new InMemorySessionRegistry({ maxSessions: options.maxSessions, maxSessionsPerKey: options.maxSessionsPerKey });
  const admission = new RealtimeAdmission({
    registry,
    clock: timerClock,
    logger,
    ...(deps.isKeyActive ? { isKeyActive: deps.isKeyActive } : {}),
  });
  const watch = admission.watchRevocations(options.keyCheckIntervalMs);
  return { admission, stop: () => void watch?.stop() };
}

/** Credits the connection's credential, then asks the admission for a slot. */
export async function admitConnection(
  credentials: Credentials | null,
  deps: RealtimeGatewayDeps,
  admission: RealtimeAdmission,
  logger: Logger,
): Promise<GatewayAdmission> {
  const credited = await creditConnection(credentials, deps, logger);
  if (!credited) return { refused: 'invalid_credentials' };
  if ('refused' in credited) return credited;
  const outcome = await admission.admit(credited);
  if (outcome.admitted) return { refused: null, session: outcome.session };
  return { refused: outcome.refusal, ...(outcome.reason ? { reason: outcome.reason } : {}) };
}
