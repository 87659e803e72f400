// Speech synthesis engines for the core's SpeechSynthesizer port (Flite, espeak-ng, Piper, Kokoro, an
// upstream server), the model directory's voices, `models pull`, and the language of a text.
export { FliteSpeechSynthesizer, type FliteSpeechSynthesizerOptions } from './flite/flite-speech-synthesizer.js';
export { FLITE_ENGINE, FLITE_VOICES, type FliteVoiceSpec } from './flite/flite-voices.js';
export { EspeakSpeechSynthesizer, type EspeakSpeechSynthesizerOptions } from './espeak/espeak-speech-synthesizer.js';
export { ESPEAK_ENGINE, ESPEAK_PRESET_PREFIX, espeakPresetName } from './espeak/espeak-voices.js';
export { applyGain } from './pcm-gain.js';
export {
  PiperSpeechSynthesizer,
  piperPresetName,
  piperFeeds,
  type PiperSpeechSynthesizerOptions,
} from './piper/piper-speech-synthesizer.js';
export {
  NeuralSpeechSynthesizer,
  type LoadedModel,
  type NeuralEngine,
  type NeuralEngineOptions,
} from './neural/neural-speech-synthesizer.js';
export { parsePiperVoiceConfig, piperPhonemeIds, type PiperVoiceConfig } from './piper/piper-voice-config.js';
export { EspeakPhonemizer } from './models/espeak-phonemizer.js';
export { scanVoiceModels, type VoiceModelScan, type PiperModel } from './models/model-directory.js';
// `models pull`: the curated catalog and the download from a Hugging Face hub (an operator's explicit action, never the server's).
export { MODEL_CATALOG, catalogEntry, type CatalogEntry, type CatalogVariant } from './models/model-catalog.js';
export {
  pullModel,
  planPull,
  megabytes,
  type PullRequest,
  type PullOptions,
  type PullEvents,
  type PullPlan,
  type PullResult,
} from './models/model-pull.js';
export { ModelPullError, type HubConnection, type RemoteFile } from './models/hub-files.js';
export { parseKokoroBlend } from './kokoro/kokoro-blend.js';
export { KokoroSpeechSynthesizer, kokoroPresetName, kokoroFeeds, kokoroInputIds } from './kokoro/kokoro-speech-synthesizer.js';
export { readKokoroModel, KOKORO_SAMPLE_RATE, type KokoroModel } from './kokoro/kokoro-model.js';
export { KOKORO_ENGLISH_G2P, type KokoroEnglishG2P } from './kokoro/kokoro-phonemes.js';
export {
  UpstreamSpeechSynthesizer,
  upstreamPresetName,
  UPSTREAM_PCM_RATE,
  type UpstreamSpeechSynthesizerOptions,
} from './upstream/upstream-speech-synthesizer.js';
// Language detection
export { FrancLanguageDetector, type FrancLanguageDetectorOptions } from './language/franc-language-detector.js';
export {
  ShortTextLanguageDetector,
  type ShortTextLanguageDetectorOptions,
  type LanguageScores,
} from './language/short-text-language-detector.js';
export { languageByScript, type ScriptVerdict } from './language/language-by-script.js';
export { ISO639_3_TO_1 } from './language/iso639.js';
export { espeakPresetForLanguage } from './language/espeak-preset-for-language.js';
