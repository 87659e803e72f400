import { decodeImage, decodeRegion, downscale, fitInside, imageHeader, shrinksOnLoad, type ImageHeader } from './decode-image.js';
import type { FaceApiRuntime } from './face-api-runtime.js';
import { detectLargestFace } from './face-detection.js';
import { cropToFrame, frameRect, insidePhoto, pixelBox, toFrame, type FrameRect } from './framing.js';
import type { Point, RgbImage } from './rgb-image.js';

export interface PrepareFaceOptions {
  width: number;
  height: number;
  detectMaxSide: number;
  minFaceScore: number;
}

/** How long each step of prepareFace took (ms). */
export interface PrepareFaceStages {
  /** The header read and the detector's copy decoded (shrunk while decoding when the photo allows it). */
  decode: number;
  /** The SSD pass and the landmark net on that copy. */
  detect: number;
  /** The frame cut and scaled (from the whole photo, or its region decoded from the bytes). */
  frame: number;
}

/** What a photo becomes: the framed picture and its 68 landmarks; or why it cannot. */
export type PreparedFace =
  | { ok: true; framed: RgbImage; landmarks: Point[]; stages: PrepareFaceStages }
  | { ok: false; reason: 'not_an_image' | 'no_face'; message: string };

/**
 * Photo -> framed reference: ONE pass of the SSD detector on a copy at most detectMaxSide wide,
 * the 68 landmarks of the largest face only (face-api's withFaceLandmarks() runs the landmark net
 * on every face found: 3-5 in a group photo), then the frame cut so the face sits centred with
 * headroom; the landmarks are carried into the frame's coordinates.
 *
 * A photo 3x or more larger than the copy (a phone's 12 MP JPEG) is not decoded whole: the copy
 * comes straight from the JPEG's DCT blocks at 1/2-1/8 (libvips shrink-on-load), and the frame
 * decodes only the rows and columns it shows, at the resolution it needs (decodeFrame). A smaller
 * photo (face-api's 1920 px samples against the 1024 px copy) cannot shrink on load and is decoded
 * once, whole, as before: a 640 px copy would shrink, but the landmark net then places the eyes
 * differently enough (1-6 % of the eye distance) that the blinks of three samples no longer shut
 * (lid artefacts: docs/benchmarks.md, issue 24). The frame needs the landmarks, so its decode
 * follows the detector: every libvips call is awaited before this returns (a decode still running
 * as the detector thread ended aborted the process once), and a photo without a face never pays
 * for it. Failures are values, not exceptions, so they cross a worker-thread boundary intact.
 */
export async function prepareFace(runtime: FaceApiRuntime, image: Uint8Array, options: PrepareFaceOptions): Promise<PreparedFace> {
  let t = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const ms = now - t;
    t = now;
    return ms;
  };
  let header: ImageHeader;
  let small: RgbImage;
  let copy: { width: number; height: number; scale: number };
  let whole: RgbImage | null = null;
  try {
    header = await imageHeader(image);
    copy = fitInside(header.width, header.height, options.detectMaxSide);
    if (shrinksOnLoad(header, copy.scale)) {
      small = await decodeImage(image, { size: copy });
    } else {
      whole = await decodeImage(image);
      small = (await downscale(whole, options.detectMaxSide)).image;
    }
  } catch (err) {
    return { ok: false, reason: 'not_an_image', message: (err as Error).message };
  }
  const decode = lap();
  const face = await detectLargestFace(runtime, small, options.minFaceScore);
  const detect = lap();
  if (!face) return { ok: false, reason: 'no_face', message: 'no face found' };
  // one factor for both axes, as the copy was made (its height rounded from the same factor)
  const landmarks = face.landmarks.map((p) => ({ x: p.x / copy.scale, y: p.y / copy.scale }));
  const rect = frameRect(landmarks, header.width, header.height, options.width, options.height);
  let framed: RgbImage;
  try {
    framed = whole
      ? await cropToFrame(whole, rect, options.width, options.height)
      : await decodeFrame(image, header, rect, options.width, options.height);
  } catch (err) {
    return { ok: false, reason: 'not_an_image', message: (err as Error).message };
  }
  return { ok: true, framed, landmarks: toFrame(landmarks, rect), stages: { decode, detect, frame: lap() } };
}

/**
 * The output frame cut from the photo's bytes by `rect` (in the upright photo's pixels). A crop
 * with 6x the output's pixels or more across is decoded shrunk on load to twice the output's
 * resolution (the lanczos step keeps a factor of 2), then cut; a crop inside the photo otherwise is
 * decoded as a region and scaled in one pipeline: the very pixels cropToFrame takes from the whole
 * photo, without decoding the rows below it or holding the whole photo. A crop that reaches outside
 * the photo is padded by cropToFrame.
 */
export async function decodeFrame(
  bytes: Uint8Array,
  header: ImageHeader,
  rect: FrameRect,
  outWidth: number,
  outHeight: number,
): Promise<RgbImage> {
  const reduce = Math.min(1, 2 * rect.scale);
  const shrink = shrinksOnLoad(header, reduce);
  if (!shrink && insidePhoto(rect, header.width, header.height)) {
    return decodeRegion(bytes, header, { ...pixelBox(rect, header.width, header.height), outWidth, outHeight });
  }
  const size = fitInside(header.width, header.height, Math.ceil(Math.max(header.width, header.height) * reduce));
  const photo = await decodeImage(bytes, shrink ? { size } : {});
  const k = photo.width / header.width;
  return cropToFrame(
    photo,
    { left: rect.left * k, top: rect.top * k, width: rect.width * k, height: rect.height * k, scale: rect.scale / k },
    outWidth,
    outHeight,
  );
}
