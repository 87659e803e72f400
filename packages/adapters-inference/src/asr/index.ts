// Speech recognition: CMU pocketsphinx (Debian packages), English only.
export { PocketsphinxSpeechRecognizer, type PocketsphinxSpeechRecognizerOptions } from './pocketsphinx-speech-recognizer.js';
export { POCKETSPHINX_BINARY, POCKETSPHINX_EN_US_MODEL, assertPocketsphinxInstalled } from './pocketsphinx-installation.js';
export { ConcurrencyLimiter } from './concurrency-limiter.js';
export { runPocketsphinx } from './run-pocketsphinx.js';
