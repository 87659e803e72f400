import { hostWorker } from '@svc/adapters-runtime/worker';
import { loadFaceApi, type FaceApiRuntime } from './face-api-runtime.js';
import { detectFaces } from './face-detection.js';
import { prepareFace, type PrepareFaceOptions, type PreparedFace } from './prepare-face.js';

// Face detection (the detector and landmark nets: long synchronous work per photo) runs here so
// preparing a photo never stalls the server's event loop.
void hostWorker<{ image: Uint8Array; options: PrepareFaceOptions }, PreparedFace, FaceApiRuntime>(
  async () => {
    const runtime = await loadFaceApi();
    // One detector pass on a blank picture: the kernels' first run costs more than a later one, and
    // that cost is better paid at start-up than by the first photo.
    await detectFaces(runtime, { data: new Uint8Array(128 * 128 * 3), width: 128, height: 128 });
    return { state: runtime };
  },
  async (runtime, request) => {
    const result = await prepareFace(runtime, request.image, request.options);
    if (!result.ok) return { value: result };
    const buffer = result.framed.data.buffer as ArrayBuffer;
    return { value: result, transfer: buffer.byteLength === result.framed.data.byteLength ? [buffer] : [] };
  },
);
