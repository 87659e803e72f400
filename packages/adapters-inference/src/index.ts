// Engine and codec adapters for the @svc/core ports (speech synthesis, audio codec, language detection).

// Shared runtime: abort, worker pool, streaming resampler
export * from './runtime/index.js';

// Speech synthesis
export { FliteSpeechSynthesizer, type FliteSpeechSynthesizerOptions } from './speech/flite/flite-speech-synthesizer.js';
export { FLITE_ENGINE, FLITE_VOICES, type FliteVoiceSpec } from './speech/flite/flite-voices.js';
export { EspeakSpeechSynthesizer, type EspeakSpeechSynthesizerOptions } from './speech/espeak/espeak-speech-synthesizer.js';
export { ESPEAK_ENGINE, ESPEAK_PRESET_PREFIX, espeakPresetName } from './speech/espeak/espeak-voices.js';
export { applyGain } from './speech/pcm-gain.js';
export {
  PiperSpeechSynthesizer,
  piperPresetName,
  piperFeeds,
  type PiperSpeechSynthesizerOptions,
} from './speech/piper/piper-speech-synthesizer.js';
export {
  NeuralSpeechSynthesizer,
  type LoadedModel,
  type NeuralEngine,
  type NeuralEngineOptions,
} from './speech/neural/neural-speech-synthesizer.js';
export { parsePiperVoiceConfig, piperPhonemeIds, type PiperVoiceConfig } from './speech/piper/piper-voice-config.js';
export { EspeakPhonemizer } from './speech/models/espeak-phonemizer.js';
export { scanModelDirectory, sha256File, type ModelScan, type ModelManifest, type PiperModel } from './speech/models/model-directory.js';
// `models pull`: the curated catalog and the download from a Hugging Face hub (an operator's explicit action, never the server's).
export { MODEL_CATALOG, catalogEntry, type CatalogEntry, type CatalogVariant } from './speech/models/model-catalog.js';
export {
  pullModel,
  planPull,
  megabytes,
  type PullRequest,
  type PullOptions,
  type PullEvents,
  type PullPlan,
  type PullResult,
} from './speech/models/model-pull.js';
export { ModelPullError, type HubConnection, type RemoteFile } from './speech/models/hub-files.js';
export { parseKokoroBlend } from './speech/kokoro/kokoro-blend.js';
export { KokoroSpeechSynthesizer, kokoroPresetName, kokoroFeeds, kokoroInputIds } from './speech/kokoro/kokoro-speech-synthesizer.js';
export { readKokoroModel, KOKORO_SAMPLE_RATE, type KokoroModel } from './speech/kokoro/kokoro-model.js';
export { KOKORO_ENGLISH_G2P, type KokoroEnglishG2P } from './speech/kokoro/kokoro-phonemes.js';
export {
  UpstreamSpeechSynthesizer,
  upstreamPresetName,
  UPSTREAM_PCM_RATE,
  type UpstreamSpeechSynthesizerOptions,
} from './speech/upstream/upstream-speech-synthesizer.js';

// Audio codec (ffmpeg)
export { FfmpegAudioCodec, type FfmpegAudioCodecOptions } from './codec/ffmpeg-audio-codec.js';
export { FfmpegLiveH264Encoder, type FfmpegLiveH264EncoderOptions } from './codec/ffmpeg-live-h264-encoder.js';
export { FlvH264Reader, NAL_IDR, NAL_SPS, NAL_PPS } from './codec/flv-h264-reader.js';
export { runFfmpeg, FfmpegError, type RunFfmpegOptions } from './codec/ffmpeg/run-ffmpeg.js';
export {
  closeProcessLauncher,
  useProcessLauncher,
  processLauncher,
  ProcessLauncher,
  type LaunchedChild,
  type ChildExit,
} from './runtime/process-launcher.js';
export { ffmpegPath } from './codec/ffmpeg/ffmpeg-path.js';
export { detectAudioFormat, type AudioContainer } from './codec/detect-audio-format.js';
export { encoderArguments, decoderArguments, DEFAULT_BITRATES, type EncoderBitrates } from './codec/encoder-arguments.js';
export { wavHeader } from './codec/wav-writer.js';
export { floatToInt16, resampleInt16 } from './codec/pcm-samples.js';
export { mp4Faststart } from './codec/mp4-faststart.js';

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

// Voice cloning (analysis, conversion, speaker similarity) and safe media fetching
export * from './voice-cloning/index.js';
export * from './media/index.js';
export * from './language-model/index.js';
export * from './vad/index.js';
export * from './asr/index.js';
export * from './opus/index.js';
export * from './noise/index.js';

// Avatar video: the talking-head renderer and the fragmented-MP4 encoder
export * from './avatar/index.js';
export { FfmpegVideoEncoder, padToFrames, type FfmpegVideoEncoderOptions } from './codec/ffmpeg-video-encoder.js';
export { avcCodecString, aacCodecString, AVATAR_VIDEO_CODECS, AVATAR_VIDEO_MIME_TYPE } from './codec/mp4-codec-string.js';
export { pcmToWav } from './codec/wav-writer.js';
export { readWav } from './speech/wav-reader.js';
