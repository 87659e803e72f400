// What every engine package shares (speech synthesis, recognition, avatar, media, voice cloning):
// cancellation, the worker threads engines run in and the launcher of child processes, sample-rate
// checks, PCM sample conversion, WAV reading and writing, the resamplers (streaming and whole-buffer
// Speex), ONNX session loading and the ONNX writer (graphs built in code), the model directory's
// manifest, and a seeded random generator (the avatar's motion, the decoders' temperature fallback).
export { abortError, isAbortError, throwIfAborted } from './abort.js';
export { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';
export { LazyWorkerPool } from './lazy-worker-pool.js';
export { hostWorker, silenceWasiExperimentalWarning } from './worker-host.js';
export { isCancelled } from './worker-protocol.js';
export {
  closeProcessLauncher,
  useProcessLauncher,
  processLauncher,
  sharedLauncher,
  ProcessLauncher,
  type LaunchedChild,
  type ChildExit,
  type LauncherCommand,
} from './process-launcher.js';
export { listenOnce, socketFolder, socketPath, type OneConnection } from './child-sockets.js';
export { processRunning } from './process-alive.js';
export { assertSampleRate } from './sample-rate.js';
export { floatToInt16, int16ToFloat, resampleInt16 } from './pcm-samples.js';
export { pcmToWav, wavHeader } from './wav-writer.js';
export { readWav } from './wav-reader.js';
export { RESAMPLER_QUALITY, StreamingResampler, resampleBuffer } from './streaming-resampler.js';
export { disableOnnxTelemetry } from './onnx-telemetry.js';
export { externalDataFiles, loadVoiceModelSession, onnxModelBytes } from './onnx-session.js';
export {
  writeOnnxModel,
  writeOnnxModelWithExternalData,
  OnnxType,
  type OnnxGraph,
  type OnnxInitializer,
  type OnnxNode,
  type OnnxValue,
} from './onnx-writer.js';
export { modelDirectoryEntries, sha256File, type ModelManifest } from './model-manifest.js';
export { seededRandom } from './seeded-random.js';
