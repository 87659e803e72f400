// Speech recognition for the core's SpeechRecognizer port (pocketsphinx processes, Whisper / Moonshine on
// onnxruntime, an upstream server), voice activity (Silero), input noise suppression (RNNoise) and
// semantic_vad's learned end-of-turn model (Smart Turn v3, an operator's ONNX file).
export * from './vad/index.js';
export * from './asr/index.js';
export * from './noise/index.js';
export * from './turn/index.js';
