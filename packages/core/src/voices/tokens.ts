/** Injection tokens of the voices capability (plain symbols; apps/server binds them). */
export const VOICE_TOKENS = {
  VoiceRepository: Symbol.for('svc.VoiceRepository'),
  VoiceAnalyzer: Symbol.for('svc.VoiceAnalyzer'),
  VoiceConverter: Symbol.for('svc.VoiceConverter'),
  VoiceCloner: Symbol.for('svc.VoiceCloner'),
  MediaFetcher: Symbol.for('svc.MediaFetcher'),
  RegisterVoice: Symbol.for('svc.RegisterVoice'),
  ListVoices: Symbol.for('svc.ListVoices'),
  GetVoice: Symbol.for('svc.GetVoice'),
  DeleteVoice: Symbol.for('svc.DeleteVoice'),
} as const;
