// For the lean-detector test: loads the face detector in a fresh thread (a fresh WebAssembly heap),
// prepares the given photos and reports how big the tfjs WASM heap grew. With `original`, face-api's
// own one-tidy forward pass runs instead of the lean one (the instance override is removed).
import { parentPort, workerData } from 'node:worker_threads';
import { loadFaceApi } from '../../src/avatar/face-api-runtime.js';
import { prepareFace } from '../../src/avatar/prepare-face.js';

const { photos, original } = workerData as { photos: Uint8Array[]; original: boolean };
const runtime = await loadFaceApi();
if (original) delete (runtime.faceapi.nets.ssdMobilenetv1 as { forwardInput?: unknown }).forwardInput;
for (const photo of photos) {
  const face = await prepareFace(runtime, photo, { width: 640, height: 640, detectMaxSide: 1024, minFaceScore: 0.4 });
  if (!face.ok) throw new Error(face.message);
}
const backend = (runtime.tf as unknown as { backend(): { wasm: { HEAPU8: Uint8Array } } }).backend();
parentPort!.postMessage({ heapBytes: backend.wasm.HEAPU8.length, lean: runtime.leanDetector });
