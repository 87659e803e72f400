import { decodeImage, downscale } from './decode-image.js';
import type { FaceApiRuntime } from './face-api-runtime.js';
import { detectFaces, detectLargestFace } from './face-detection.js';
import { cropToFrame, frameRect, mean, toFrame } from './framing.js';
import type { Point, RgbImage } from './rgb-image.js';

export interface PrepareFaceOptions {
  width: number;
  height: number;
  detectMaxSide: number;
  minFaceScore: number;
}

/** What a photo becomes: the framed picture and its 68 landmarks; or why it cannot. */
export type PreparedFace =
  | { ok: true; framed: RgbImage; landmarks: Point[] }
  | { ok: false; reason: 'not_an_image' | 'no_face'; message: string };

/**
 * Photo -> framed reference: decode (EXIF, greyscale, CMYK, alpha), find the largest face with the
 * SSD detector on a copy at most detectMaxSide wide, crop and scale so it sits centred with
 * headroom, then the landmarks again on the framed picture (sharper at its scale). Failures are
 * values, not exceptions, so they cross a worker-thread boundary with their kind intact.
 */
export async function prepareFace(runtime: FaceApiRuntime, image: Uint8Array, options: PrepareFaceOptions): Promise<PreparedFace> {
  let photo: RgbImage;
  try {
    photo = await decodeImage(image);
  } catch (err) {
    return { ok: false, reason: 'not_an_image', message: (err as Error).message };
  }
  const small = await downscale(photo, options.detectMaxSide);
  const face = await detectLargestFace(runtime, small.image, options.minFaceScore);
  if (!face) return { ok: false, reason: 'no_face', message: 'no face found' };
  const landmarks = face.landmarks.map((p) => ({ x: p.x / small.scale, y: p.y / small.scale }));
  const rect = frameRect(landmarks, photo.width, photo.height, options.width, options.height);
  const framed = await cropToFrame(photo, rect, options.width, options.height);
  return { ok: true, framed, landmarks: await refine(runtime, framed, toFrame(landmarks, rect)) };
}

/**
 * The detector + landmarks pipeline again on the frame, taking the face where the first pass put
 * it. (The landmark net alone in the moved box is 400 ms faster but reads open, tilted mouths
 * worse, which shows as lips that do not meet.)
 */
async function refine(runtime: FaceApiRuntime, framed: RgbImage, expected: Point[]): Promise<Point[]> {
  const faces = await detectFaces(runtime, framed, 0.3);
  const target = mean(expected, 27, 36);
  const nearest = faces.map((f) => ({ f, d: distance(mean(f.landmarks, 27, 36), target) })).sort((a, b) => a.d - b.d)[0];
  const eyeDistance = distance(mean(expected, 36, 42), mean(expected, 42, 48));
  return nearest && nearest.d < eyeDistance * 0.5 ? nearest.f.landmarks : expected;
}

function distance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}
