// Speech recognition: CMU pocketsphinx (Debian's python3-pocketsphinx + pocketsphinx-en-us), English only.
export {
  PocketsphinxSpeechRecognizer,
  POCKETSPHINX_DECODER_ARGS,
  type PocketsphinxSpeechRecognizerOptions,
} from './pocketsphinx-speech-recognizer.js';
export { POCKETSPHINX_EN_US_MODEL, POCKETSPHINX_EN_US_MODEL_DIR } from './pocketsphinx-installation.js';
export { DecoderPool, type DecoderPoolStats, type DecoderWait } from './decoder-pool.js';
