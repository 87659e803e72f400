// For the ONNX detector test: loads the face detector in a fresh thread (a fresh WebAssembly heap),
// prepares the given photos and reports how big tfjs's WASM heap (now only the landmark net's) grew.
import { parentPort, workerData } from 'node:worker_threads';
import { loadFaceApi } from '../src/face-api-runtime.js';
import { prepareFace } from '../src/prepare-face.js';

const { photos } = workerData as { photos: Uint8Array[] };
const runtime = await loadFaceApi();
for (const photo of photos) {
  const face = await prepareFace(runtime, photo, { width: 640, height: 640, detectMaxSide: 1024, minFaceScore: 0.4 });
  if (!face.ok) throw new Error(face.message);
}
const backend = (runtime.tf as unknown as { backend(): { wasm: { HEAPU8: Uint8Array } } }).backend();
parentPort!.postMessage({ heapBytes: backend.wasm.HEAPU8.length });
