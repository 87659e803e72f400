import { decodeImage, downscale, imageLayout } from './decode-image.js';
import type { FaceApiRuntime } from './face-api-runtime.js';
import { landmarksOfBox, largestFaceBox } from './face-detection.js';
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
  /** The detector's copy decoded. */
  decode: number;
  /** The SSD pass on it. */
  detect: number;
  /** The rest of the full-resolution decode (running since the start), then the landmark net. */
  landmarks: number;
  /** Crop and scale into the frame. */
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
 * as the first for landmarks the same within a pixel or two.)
 *
 * Two decodes, at once: the detector's small copy (the SSD sees 512x512 whatever it is given; a
 * JPEG or WebP over ~3x larger decodes straight at a fraction of its size, libjpeg's DCT scaling,
 * ~25 ms of CPU for a 1920 px photo against ~55 for the whole), and the whole photo on libvips'
 * threads beside the detector, for the landmarks (cut from it at full resolution) and the framing.
 * A new photo waits for the small decode and the SSD, no longer for the full decode and a resize
 * in front of them. A photo that is already small, or a PNG (no shrink-on-load), is decoded once.
 * Failures are values, not exceptions, so they cross a worker-thread boundary with their kind intact.
 */
export async function prepareFace(runtime: FaceApiRuntime, image: Uint8Array, options: PrepareFaceOptions): Promise<PreparedFace> {
  let t = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const ms = now - t;
    t = now;
    return ms;
  };
  let decoded: { small: RgbImage; whole: Promise<RgbImage> };
  try {
    decoded = await decodeTwice(image, options.detectMaxSide);
  } catch (err) {
    return notAnImage(err);
  }
  const { small } = decoded;
  const decode = lap();
  const found = await largestFaceBox(runtime, small, options.minFaceScore);
  const detect = lap();
  if (!found) {
    // Never leave a decode running behind a returned job: the pool may end this thread as soon as
    // it is idle, and a native callback into an ended thread aborts the whole process.
    await decoded.whole.catch(() => undefined);
    return { ok: false, reason: 'no_face', message: 'no face found' };
  }
  let photo: RgbImage;
  try {
    photo = await decoded.whole;
  } catch (err) {
    return notAnImage(err);
  }
  const [sx, sy] = [photo.width / small.width, photo.height / small.height];
  const box = { x: found.box.x * sx, y: found.box.y * sy, width: found.box.width * sx, height: found.box.height * sy };
  const landmarks = await landmarksOfBox(runtime, photo, box);
  if (landmarks.length === 0) return { ok: false, reason: 'no_face', message: 'no face found' };
  const landmarkMs = lap();
  const rect = frameRect(landmarks, photo.width, photo.height, options.width, options.height);
  const framed = await cropToFrame(photo, rect, options.width, options.height);
  return { ok: true, framed, landmarks: toFrame(landmarks, rect), stages: { decode, detect, landmarks: landmarkMs, frame: lap() } };
}

const notAnImage = (err: unknown): PreparedFace => ({ ok: false, reason: 'not_an_image', message: (err as Error).message });

/**
 * The detector's copy (awaited) and the whole photo (still decoding, for the framing). A photo
 * already no larger than the detector's copy, or one that cannot shrink on load, is decoded once.
 */
async function decodeTwice(image: Uint8Array, detectMaxSide: number): Promise<{ small: RgbImage; whole: Promise<RgbImage> }> {
  const layout = await imageLayout(image);
  if (Math.max(layout.width, layout.height) <= detectMaxSide || !layout.shrinksOnLoad) {
    const whole = await decodeImage(image);
    return { small: (await downscale(whole, detectMaxSide)).image, whole: Promise.resolve(whole) };
  }
  const whole = decodeImage(image);
  whole.catch(() => undefined); // awaited below or after detection, never left unhandled
  try {
    return { small: await decodeImage(image, { maxSide: detectMaxSide }), whole };
  } catch (err) {
    await whole.catch(() => undefined); // settled before the job returns (see prepareFace)
    throw err;
  }
}
