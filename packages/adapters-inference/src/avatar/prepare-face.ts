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
 * Photo -> framed reference: decode (EXIF, greyscale, CMYK, alpha), ONE pass of the SSD detector +
 * 68 landmarks on a copy at most detectMaxSide wide (the largest face), then crop and scale so it
 * sits centred with headroom; the landmarks are carried into the frame's coordinates. (A second
 * detector pass on the framed picture used to refine them: it cost as much as the first, 0.3-1 s,
 * for landmarks the same within a pixel or two, since the landmark net reads every face at 112 px
 * whatever the photo's scale.) Failures are values, not exceptions, so they cross a worker-thread
 * boundary with their kind intact.
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
