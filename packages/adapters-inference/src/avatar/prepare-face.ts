import { decodeImage, downscale } from './decode-image.js';
import type { FaceApiRuntime } from './face-api-runtime.js';
import { detectLargestFace } from './face-detection.js';
import { cropToFrame, frameRect, toFrame } from './framing.js';
import type { Point, RgbImage } from './rgb-image.js';

export interface PrepareFaceOptions {
  width: number;
  height: number;
  detectMaxSide: number;
  minFaceScore: number;
}

/** How long each step of prepareFace took (ms). */
export interface PrepareFaceStages {
  decode: number;
  detect: number;
  frame: number;
}

/** What a photo becomes: the framed picture and its 68 landmarks; or why it cannot. */
export type PreparedFace =
  | { ok: true; framed: RgbImage; landmarks: Point[]; stages: PrepareFaceStages }
  | { ok: false; reason: 'not_an_image' | 'no_face'; message: string };

/**
 * Photo -> framed reference: decode (EXIF, greyscale, CMYK, alpha), ONE pass of the SSD detector on
 * a copy at most detectMaxSide wide, the 68 landmarks of the largest face only (face-api's
 * withFaceLandmarks() runs the landmark net on every face found: 3-5 in a group photo), then crop
 * and scale so it sits centred with headroom; the landmarks are carried into the frame's
 * coordinates. (A second detector pass on the framed picture used to refine them: it cost as much
 * as the first for landmarks the same within a pixel or two.) The photo is decoded once: decoding
 * the detector's copy separately, beside the whole photo, shortened the wait by ~20 ms of CPU but
 * cost ~70 ms more of it, which a loaded machine pays back with interest. Failures are values, not
 * exceptions, so they cross a worker-thread boundary with their kind intact.
 */
export async function prepareFace(runtime: FaceApiRuntime, image: Uint8Array, options: PrepareFaceOptions): Promise<PreparedFace> {
  let t = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const ms = now - t;
    t = now;
    return ms;
  };
  let photo: RgbImage;
  try {
    photo = await decodeImage(image);
  } catch (err) {
    return { ok: false, reason: 'not_an_image', message: (err as Error).message };
  }
  const small = await downscale(photo, options.detectMaxSide);
  const decode = lap();
  const face = await detectLargestFace(runtime, small.image, options.minFaceScore);
  const detect = lap();
  if (!face) return { ok: false, reason: 'no_face', message: 'no face found' };
  const landmarks = face.landmarks.map((p) => ({ x: p.x / small.scale, y: p.y / small.scale }));
  const rect = frameRect(landmarks, photo.width, photo.height, options.width, options.height);
  const framed = await cropToFrame(photo, rect, options.width, options.height);
  return { ok: true, framed, landmarks: toFrame(landmarks, rect), stages: { decode, detect, frame: lap() } };
}
