// Speech recognition: CMU pocketsphinx (Debian's python3-pocketsphinx + pocketsphinx-en-us), English only.
export {
  PocketsphinxSpeechRecognizer,
  POCKETSPHINX_DECODER_ARGS,
  type PocketsphinxSpeechRecognizerOptions,
} from './pocketsphinx-speech-recognizer.js';
export { POCKETSPHINX_EN_US_MODEL, POCKETSPHINX_EN_US_MODEL_DIR } from './pocketsphinx-installation.js';
export { DecoderPool, type DecoderPoolStats, type DecoderWait } from './decoder-pool.js';
// Whisper and Moonshine from transformers.js ONNX exports (buffered per turn), on onnxruntime-node.
export { TransformersSpeechRecognizer, type TransformersSpeechRecognizerOptions } from './seq2seq/transformers-speech-recognizer.js';
export {
  readTransformersAsrModel,
  isTransformersAsrLayout,
  ONNX_VARIANTS,
  type TransformersAsrModel,
} from './seq2seq/transformers-model-folder.js';
export { scanRecognitionModels, type RecognitionModelScan } from './seq2seq/recognition-model-directory.js';
export { WhisperLogMel, slaneyMelFilterbank, WHISPER_FEATURES, WHISPER_FRAMES } from './features/whisper-log-mel.js';
export { TokenDecoder } from './seq2seq/token-decoder.js';
export type { DetailedTranscript, TranscriptSegment, TranscriptWord } from './seq2seq/transcript.js';
export { UpstreamSpeechRecognizer, type UpstreamSpeechRecognizerOptions } from './upstream/upstream-speech-recognizer.js';
export { compressionRatio } from './compression-ratio.js';
