/**
 * Injection tokens of the voices capability. The capability is wired by
 * apps/server/src/composition/voices.ts; only what other capabilities resolve has a token.
 */
export const VOICE_TOKENS = {
  VoiceCloner: Symbol.for('svc.VoiceCloner'),
} as const;
