// Test-only builders and data (imported by tests, benchmarks and demos, never by an engine's sources):
// small ONNX models with the exact signatures of Piper and Kokoro exports, their config and voice
// files, and the minimal ONNX writer they are built with. Tests, benchmarks and demos use them
// where no real weights can be downloaded.
export { writeOnnxModel, writeOnnxModelWithExternalData, OnnxType, type OnnxNode, type OnnxGraph } from '@svc/adapters-runtime';
export { piperTestModel, kokoroTestModel, PIPER_TEST_MODEL, KOKORO_TEST_MODEL } from './test-voice-models.js';
export { piperConfigJson, writePiperVoice, writeKokoroModel, PIPER_PUNCTUATION, type PiperTestConfigOptions } from './test-voice-files.js';
// Whisper- and Moonshine-shaped model folders (transformers.js ONNX layout) whose logits are a known function of their inputs.
export {
  seq2seqTestEncoder,
  seq2seqTestEncoderGraph,
  seq2seqTestDecoder,
  MOONSHINE_CONV_STEM,
  type Seq2SeqTestTables,
  type Seq2SeqTestShape,
} from './seq2seq-test-models.js';
export {
  writeTestAsrFolder,
  testWhisperTokenizer,
  testWhisperGenerationConfig,
  TEST_WHISPER_TOKENS,
  TEST_WHISPER_TABLES,
  TEST_WHISPER_START_OF_PREV,
  TEST_MOONSHINE_TOKENS,
  TEST_ASR_SHAPE,
  type TestAsrFolderOptions,
} from './test-asr-folder.js';
// A logger that keeps every entry, for tests of what is logged.
export { recordingLogger, type LogEntry } from './recording-logger.js';
// A Smart Turn v3-shaped end-of-turn model whose probability is a known function of its features.
export { smartTurnTestModel, SMART_TURN_TEST_MODEL } from './smart-turn-test-model.js';
// A local stand-in for the Hugging Face hub (its URL layout and headers), for `models pull` tests.
export {
  TestHubServer,
  testCommit,
  sha256Hex,
  gitBlobSha1,
  hubFilesFromFolder,
  type TestHubRepo,
  type TestHubFile,
  type TestHubFaults,
} from './test-hub-server.js';
// Short everyday sentences in thirteen languages and the per-language accuracy of a LanguageDetector on them.
export { SHORT_SENTENCES, HELD_OUT_SHORT_SENTENCES } from './short-sentences.js';
export { SHORT_UTTERANCES, HELD_OUT_SHORT_UTTERANCES, LATER_SHORT_UTTERANCES } from './short-utterances.js';
export { languageAccuracy, type LanguageAccuracy } from './language-accuracy.js';
// Real human speech (Debian's pocketsphinx-testdata LibriVox clips) for the VAD, ASR, Opus and avatar tests.
export {
  librivoxClips,
  librivoxClip,
  speechEdgesMs,
  silenceMs,
  concat,
  whiteNoise,
  LIBRIVOX_DIR,
  LIBRIVOX_RATE,
  type LibrivoxClip,
} from './librivox.js';
// A browser's noise suppression, roughly (the recognizer's and turn detection's tests).
export { noiseSuppressed, suppressedRoom } from './noise-suppressed.js';
// How long the main event loop was busy while work ran (the engines' worker-thread tests).
export { loopBusy } from './event-loop-watch.js';
// Codec test helpers: a sine, a whole stream collected, whether a child process is still running.
export { sine, collect, isRunning, waitUntilGone } from './codec-helpers.js';
// The child processes of this process whose command line or name says so (ffmpeg, the speech decoders).
export { childProcesses } from './child-processes.js';
