// Speech recognition for the core's SpeechRecognizer port (pocketsphinx processes, Whisper / Moonshine on
// onnxruntime, an upstream server), voice activity (Silero) and input noise suppression (RNNoise).
export * from './vad/index.js';
export * from './asr/index.js';
export * from './noise/index.js';
