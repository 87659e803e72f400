// What every engine folder shares (speech, asr, vad, noise, avatar, codec): cancellation, the worker
// threads engines run in, sample-rate checks, ONNX session loading, the one streaming resampler and a
// seeded random generator (the avatar's motion, the decoders' temperature fallback).
export { abortError, isAbortError, throwIfAborted } from './abort.js';
export { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';
export { StreamingResampler, resampleBuffer } from './streaming-resampler.js';
export { processRunning } from './process-alive.js';
