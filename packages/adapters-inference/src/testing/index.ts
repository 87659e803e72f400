// Test-only builders (imported as `@svc/adapters-inference/testing`, never by the production entry):
// small ONNX models with the exact signatures of Piper and Kokoro exports, their config and voice
// files, and the minimal ONNX writer they are built with. Tests, benchmarks and demos use them
// where no real weights can be downloaded.
export { writeOnnxModel, OnnxType, type OnnxNode } from './onnx-writer.js';
export { piperTestModel, kokoroTestModel, PIPER_TEST_MODEL, KOKORO_TEST_MODEL } from './test-voice-models.js';
export { piperConfigJson, writePiperVoice, writeKokoroModel } from './test-voice-files.js';
