import { token } from '../shared/token.js';
import type { AudioCodec } from './audio-codec.js';
import type { LanguageDetector, SpeechSynthesizer } from './speech-synthesizer.js';
import type { SynthesizeSpeech } from './synthesize-speech.js';
import type { VoiceCatalog } from './voice-catalog.js';

/** Injection tokens of the speech capability, each typed with what is bound under it. */
export const SPEECH_TOKENS = {
  SpeechSynthesizers: token<SpeechSynthesizer[]>('svc.SpeechSynthesizers'),
  LanguageDetector: token<LanguageDetector>('svc.LanguageDetector'),
  AudioCodec: token<AudioCodec>('svc.AudioCodec'),
  SynthesizeSpeech: token<SynthesizeSpeech>('svc.SynthesizeSpeech'),
  VoiceCatalog: token<VoiceCatalog>('svc.VoiceCatalog'),
} as const;
