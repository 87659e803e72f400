import { token } from '../shared/token.js';
import type { VoiceCloner } from '../speech/cloned-voice.js';
import type { VoiceAnalyzer } from './voice-analyzer.js';
import type { VoiceConverter } from './voice-converter.js';
import type { VoiceRepository } from './voice-repository.js';

/**
 * Injection tokens of the voices capability, each typed with its port. The capability is wired by
 * apps/server/src/composition/voices.ts; every port has a token, so a test or an embedder can replace it.
 */
export const VOICE_TOKENS = {
  VoiceCloner: token<VoiceCloner>('svc.VoiceCloner'),
  VoiceRepository: token<VoiceRepository>('svc.VoiceRepository'),
  VoiceAnalyzer: token<VoiceAnalyzer>('svc.VoiceAnalyzer'),
  VoiceConverter: token<VoiceConverter>('svc.VoiceConverter'),
} as const;
