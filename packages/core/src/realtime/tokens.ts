/**
 * Injection tokens of the realtime capability. Sessions are wired by
 * apps/server/src/composition/realtime.ts; every port has a token, so a test or an embedder can replace it.
 */
export const REALTIME_TOKENS = {
  ClientSecretRepository: Symbol.for('svc.realtime.ClientSecretRepository'),
  ReplySpeaker: Symbol.for('svc.realtime.ReplySpeaker'),
  /** VoiceActivityDetector, or null when turn detection is off. */
  VoiceActivityDetector: Symbol.for('svc.realtime.VoiceActivityDetector'),
  /** SpeechRecognizer, or null when no recognizer runs. */
  SpeechRecognizer: Symbol.for('svc.realtime.SpeechRecognizer'),
  OpusCodec: Symbol.for('svc.realtime.OpusCodec'),
  /** Resampler: the input once to the 16 kHz the detector and the recognizer share. */
  Resampler: Symbol.for('svc.realtime.Resampler'),
  /** NoiseSuppressor for `noise_reduction` (RNNoise). */
  NoiseSuppressor: Symbol.for('svc.realtime.NoiseSuppressor'),
  /** `{ available, detail }`: whether user audio can be transcribed, and why not (banner, /readyz). */
  SpeechRecognitionStatus: Symbol.for('svc.realtime.SpeechRecognitionStatus'),
  LanguageModel: Symbol.for('svc.realtime.LanguageModel'),
  ConversationSummarizer: Symbol.for('svc.realtime.ConversationSummarizer'),
  QuotaGuard: Symbol.for('svc.realtime.QuotaGuard'),
  SessionRegistry: Symbol.for('svc.realtime.SessionRegistry'),
  VoiceDirectory: Symbol.for('svc.realtime.VoiceDirectory'),
  MintClientSecret: Symbol.for('svc.realtime.MintClientSecret'),
  RedeemClientSecret: Symbol.for('svc.realtime.RedeemClientSecret'),
} as const;
