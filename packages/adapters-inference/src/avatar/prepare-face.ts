import { decodeImage, decodeImageAtMost } from './decode-image.js';
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
 * a copy at most detectMaxSide wide, the 68 landmarks of the largest face only, then crop and scale
 * so it sits centred with headroom; the landmarks are carried into the frame's coordinates.
 *
 * The detector's copy is decoded straight from the bytes, and the whole photo (needed only for the
 * final crop) is decoded at the same time, in libvips' threads, while the detector runs on this
 * one: the full decode is off the critical path. (A second detector pass on the framed picture
 * used to refine the landmarks: it cost as much as the first for landmarks the same within a pixel
 * or two.) Failures are values, not exceptions, so they cross a worker-thread boundary with their
 * kind intact.
 */
export async function prepareFace(runtime: FaceApiRuntime, image: Uint8Array, options: PrepareFaceOptions): Promise<PreparedFace> {
  let t = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const ms = now - t;
    t = now;
    return ms;
  };
  const whole = decodeImage(image);
  whole.catch(() => undefined); // awaited below, after the detector; a bad image fails the small copy first
  let small: RgbImage;
  try {
    small = await decodeImageAtMost(image, options.detectMaxSide);
  } catch (err) {
    return { ok: false, reason: 'not_an_image', message: (err as Error).message };
  }
  const decode = lap();
  const face = await detectLargestFace(runtime, small, options.minFaceScore);
  const detect = lap();
  if (!face) return { ok: false, reason: 'no_face', message: 'no face found' };
  let photo: RgbImage;
  try {
    photo = await whole;
  } catch (err) {
    return { ok: false, reason: 'not_an_image', message: (err as Error).message };
  }
  const scale = small.width / photo.width;
  const landmarks = face.landmarks.map((p) => ({ x: p.x / scale, y: p.y / scale }));
  const rect = frameRect(landmarks, photo.width, photo.height, options.width, options.height);
  const framed = await cropToFrame(photo, rect, options.width, options.height);
  return { ok: true, framed, landmarks: toFrame(landmarks, rect), stages: { decode, detect, frame: lap() } };
}
