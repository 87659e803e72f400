// What code inside a worker thread needs (`@svc/adapters-runtime/worker`): hosting the jobs, PCM and
// WAV, the resampler. Kept apart from the package's main entry, which loads the ONNX runtime's native
// binding and, through the core, the whole domain: a thread that imports those holds them in its own
// heap, and the idle server's speech threads grew by about 9 MB each (docs/benchmarks.md, "Idle
// footprint"). Nothing reachable from here may import `onnxruntime-node` or the core's main entry
// (apps/server/test/foundation/worker-imports.test.ts).
export { hostWorker, silenceWasiExperimentalWarning } from './worker-host.js';
export { isCancelled } from './worker-protocol.js';
export { floatToInt16, resampleInt16 } from './pcm-samples.js';
export { readWav } from './wav-reader.js';
export { StreamingResampler } from './streaming-resampler.js';
