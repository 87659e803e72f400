/**
 * Injection tokens of the voices capability. The capability is wired by
 * apps/server/src/composition/voices.ts; every port has a token, so a test or an embedder can replace it.
 */
export const VOICE_TOKENS = {
  VoiceCloner: Symbol.for('svc.VoiceCloner'),
  VoiceRepository: Symbol.for('svc.VoiceRepository'),
  VoiceAnalyzer: Symbol.for('svc.VoiceAnalyzer'),
  VoiceConverter: Symbol.for('svc.VoiceConverter'),
} as const;
