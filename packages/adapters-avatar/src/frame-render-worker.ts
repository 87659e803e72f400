import { LRUCache } from 'lru-cache';
import { hostWorker } from '@svc/adapters-runtime/worker';
import { faceGeometry } from './face-geometry.js';
import { FaceWarper } from './face-warper.js';
import type { FrameRenderResult, RenderThreadRequest } from './frame-render-job.js';
import { warmUpWarper } from './warm-up-warper.js';

/** Warpers of the photos this thread rendered last (a job may render any prepared avatar). */
const MAX_CACHED = 4;

// The per-frame warp runs here, off the main thread, so a rendering job never stalls the server's
// event loop (HTTP, realtime sessions) for the time a frame takes (many frames a second).
void hostWorker<RenderThreadRequest, FrameRenderResult, LRUCache<string, FaceWarper>>(
  async () => ({ state: new LRUCache<string, FaceWarper>({ max: MAX_CACHED }) }),
  (warpers, request, cancel) => {
    if ('warmUp' in request) {
      warmUpWarper();
      return { value: { frames: [] } };
    }
    let warper = warpers.get(request.avatarKey);
    if (!warper) {
      const reference = { data: request.reference, width: request.width, height: request.height };
      warper = new FaceWarper(reference, faceGeometry(request.landmarks));
      warpers.set(request.avatarKey, warper);
    }
    const frames: ArrayBuffer[] = [];
    for (const pose of request.poses) {
      if (Atomics.load(cancel, 0) !== 0) break;
      const rgb = new Uint8Array(request.width * request.height * 3);
      warper.render(pose, rgb);
      frames.push(rgb.buffer);
    }
    return { value: { frames }, transfer: frames };
  },
);
