import type { SessionEnding } from '@svc/core';

/** Endings decided by the gateway itself, before or around a session. */
export type GatewayEnding =
  | 'invalid_credentials'
  | 'duplicate_session'
  | 'at_capacity'
  | 'over_capacity'
  | 'flood_cooldown'
  | 'server_shutdown'
  | 'slow_reader'
  | 'inbound_rate_exceeded'
  | 'internal_error'
  | 'dependency_unavailable'
  | 'call_ended';

/**
 * EVERY WebSocket close code the realtime endpoint sends, in one table (the spec's codes and RFC
 * 6455's). The core says why a session ends (SESSION_ENDINGS); the gateway adds its own reasons.
 * Not listed because the `ws` library sends it: 1009 for a frame over SVC_REALTIME_MAX_FRAME_BYTES.
 */
export const CLOSE_CODES: Readonly<Record<SessionEnding | GatewayEnding, number>> = {
  // Normal closure (1000): the spec ends these sessions normally, after the event that explains it.
  invalid_configuration: 1000,
  system_message: 1000,
  idle_timeout: 1000,
  max_duration: 1000,
  // A WebSocket joined to a phone call (`?call_id=`): the call ended (a hang-up, a transfer).
  call_ended: 1000,
  // RFC 6455 policy violation (1008): not the protocol, a client that does not read its events, or
  // one that sends more than its inbound budget (after an `error` with code rate_limit_exceeded).
  protocol_violation: 1008,
  slow_reader: 1008,
  inbound_rate_exceeded: 1008,
  // Going away (1001): the server is shutting down.
  server_shutdown: 1001,
  // Internal error (1011): the session could not be started.
  internal_error: 1011,
  // Try again later (1013): max concurrent sessions reached.
  at_capacity: 1013,
  // Try again later (1013) too: this process cannot serve one more speaking session (CPU, recognizer, event loop).
  over_capacity: 1013,
  // Try again later (1013) too: this key's (or ephemeral key's) last session flooded; it waits a few seconds.
  flood_cooldown: 1013,
  // Try again later (1013) too: a store admission needs (the database, the shared Redis) does not answer.
  dependency_unavailable: 1013,
  // Invalid API key, or invalid or expired ephemeral key.
  invalid_credentials: 3000,
  // The ephemeral key already has an active session.
  duplicate_session: 4009,
  // The billing entitlement (QuotaGuard) refused.
  quota_refused: 4429,
};
