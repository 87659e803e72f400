/** Injection tokens of the realtime capability (plain symbols; apps/server binds them). */
export const REALTIME_TOKENS = {
  LanguageModel: Symbol.for('svc.realtime.LanguageModel'),
  ClientSecretRepository: Symbol.for('svc.realtime.ClientSecretRepository'),
  MintClientSecret: Symbol.for('svc.realtime.MintClientSecret'),
  RedeemClientSecret: Symbol.for('svc.realtime.RedeemClientSecret'),
  VoiceDirectory: Symbol.for('svc.realtime.VoiceDirectory'),
  ConversationSummarizer: Symbol.for('svc.realtime.ConversationSummarizer'),
  VoiceActivityDetector: Symbol.for('svc.realtime.VoiceActivityDetector'),
  SpeechRecognizer: Symbol.for('svc.realtime.SpeechRecognizer'),
  ReplySpeaker: Symbol.for('svc.realtime.ReplySpeaker'),
  OpusCodec: Symbol.for('svc.realtime.OpusCodec'),
  EngineDeps: Symbol.for('svc.realtime.EngineDeps'),
} as const;
