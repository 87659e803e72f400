import { hostWorker } from '../speech/worker-host.js';
import { loadFaceApi, type FaceApiRuntime } from './face-api-runtime.js';
import { prepareFace, type PrepareFaceOptions, type PreparedFace } from './prepare-face.js';

// Face detection (tfjs WASM, ~0.3-1 s of synchronous work per photo) runs here so preparing a photo
// never stalls the server's event loop.
void hostWorker<{ image: Uint8Array; options: PrepareFaceOptions }, PreparedFace, FaceApiRuntime>(
  async () => ({ state: await loadFaceApi() }),
  async (runtime, request) => {
    const result = await prepareFace(runtime, request.image, request.options);
    if (!result.ok) return { value: result };
    const buffer = result.framed.data.buffer as ArrayBuffer;
    return { value: result, transfer: buffer.byteLength === result.framed.data.byteLength ? [buffer] : [] };
  },
);
