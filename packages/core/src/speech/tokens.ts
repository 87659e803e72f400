export const SPEECH_TOKENS = {
  SpeechSynthesizers: Symbol.for('svc.SpeechSynthesizers'),
  LanguageDetector: Symbol.for('svc.LanguageDetector'),
  AudioCodec: Symbol.for('svc.AudioCodec'),
  SynthesizeSpeech: Symbol.for('svc.SynthesizeSpeech'),
  VoiceCatalog: Symbol.for('svc.VoiceCatalog'),
} as const;
