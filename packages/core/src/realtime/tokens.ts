/**
 * Injection tokens of the realtime capability. Sessions are wired by
 * apps/server/src/composition/realtime.ts; only what the container binds has a token.
 */
export const REALTIME_TOKENS = {
  ClientSecretRepository: Symbol.for('svc.realtime.ClientSecretRepository'),
  ReplySpeaker: Symbol.for('svc.realtime.ReplySpeaker'),
} as const;
