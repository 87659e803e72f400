import { sharp } from './decode-image.js';
import type { Point, RgbImage } from './rgb-image.js';

/** Where the face sits in the output frame (fractions of its height). */
export const FRAMING = {
  /** Eyes-to-chin distance: 0.27 of the height, so the head fills about 58 % of it. */
  eyeChinOfHeight: 0.27,
  /** ... but never more than this fraction of the width (portrait frames). */
  eyeChinOfWidthMax: 0.36,
  /** The line between the eyes sits at 42 % of the height: headroom above the hair. */
  eyeLine: 0.42,
  /** At most this much extra zoom to avoid padding a photo that is too small or too tight. */
  maxExtraZoom: 1.6,
} as const;

/** A source rectangle (may reach outside the photo) that maps onto the whole output frame. */
export interface FrameRect {
  left: number;
  top: number;
  width: number;
  height: number;
  /** Output pixels per source pixel. */
  scale: number;
}

/**
 * The crop of the photo that centres the face in a `outWidth` x `outHeight` frame with headroom,
 * at one scale for both axes (no stretching). The crop stays inside the photo when it can (zooming
 * in up to maxExtraZoom, then shifting); what is left reaches outside and is padded.
 */
export function frameRect(
  landmarks: readonly Point[],
  imgWidth: number,
  imgHeight: number,
  outWidth: number,
  outHeight: number,
): FrameRect {
  const eyes = midpoint(mean(landmarks, 36, 42), mean(landmarks, 42, 48));
  const chin = landmarks[8]!;
  const eyeChin = Math.max(4, Math.hypot(chin.x - eyes.x, chin.y - eyes.y));
  const target = Math.min(FRAMING.eyeChinOfHeight * outHeight, FRAMING.eyeChinOfWidthMax * outWidth);
  let scale = target / eyeChin;
  const fitScale = Math.max(outWidth / imgWidth, outHeight / imgHeight);
  if (fitScale > scale) scale = Math.min(fitScale, scale * FRAMING.maxExtraZoom);
  const width = outWidth / scale;
  const height = outHeight / scale;
  const centreX = (eyes.x + chin.x) / 2;
  let left = centreX - width / 2;
  let top = eyes.y - (FRAMING.eyeLine * outHeight) / scale;
  left =
    width <= imgWidth
      ? clamp(left, 0, imgWidth - width)
      : (imgWidth - width) / 2 + clamp(left - (imgWidth - width) / 2, -width * 0.15, width * 0.15);
  top = height <= imgHeight ? clamp(top, 0, imgHeight - height) : Math.min(top, 0);
  return { left, top, width, height, scale };
}

/** The output frame cut from the photo by `rect` (a blurred mirror of the photo where the rect reaches outside). */
export async function cropToFrame(image: RgbImage, rect: FrameRect, outWidth: number, outHeight: number): Promise<RgbImage> {
  const raw = { width: image.width, height: image.height, channels: 3 as const };
  const pad = {
    left: Math.max(0, Math.ceil(-rect.left)),
    top: Math.max(0, Math.ceil(-rect.top)),
    right: Math.max(0, Math.ceil(rect.left + rect.width - image.width)),
    bottom: Math.max(0, Math.ceil(rect.top + rect.height - image.height)),
  };
  let source = image;
  if (pad.left + pad.top + pad.right + pad.bottom > 0) {
    // the photo, sharp, over a heavily blurred mirror of itself: the padding reads as an out-of-focus
    // background instead of streaks of repeated edge pixels
    const blurred = await sharp()(image.data, { raw })
      .extend({ ...pad, extendWith: 'mirror' })
      .blur(Math.max(8, Math.min(image.width, image.height) / 12))
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { data, info } = await sharp()(blurred.data, { raw: { width: blurred.info.width, height: blurred.info.height, channels: 3 } })
      .composite([
        { input: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), raw, left: pad.left, top: pad.top },
      ])
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    source = { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  }
  const { data } = await sharp()(source.data, { raw: { width: source.width, height: source.height, channels: 3 } })
    .extract(pixelBox({ ...rect, left: rect.left + pad.left, top: rect.top + pad.top }, source.width, source.height))
    .resize(outWidth, outHeight, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: outWidth, height: outHeight };
}

/** Whether the rect lies wholly inside a photo of that size (no padding needed). */
export function insidePhoto(rect: FrameRect, imgWidth: number, imgHeight: number): boolean {
  return rect.left > -0.5 && rect.top > -0.5 && rect.left + rect.width < imgWidth + 0.5 && rect.top + rect.height < imgHeight + 0.5;
}

/** The rect in whole pixels, clipped to the image: the region cropToFrame (and a region decode) scales into the frame. */
export function pixelBox(
  rect: FrameRect,
  imgWidth: number,
  imgHeight: number,
): { left: number; top: number; width: number; height: number } {
  const left = clamp(Math.round(rect.left), 0, imgWidth - 1);
  const top = clamp(Math.round(rect.top), 0, imgHeight - 1);
  return {
    left,
    top,
    width: clamp(Math.round(rect.width), 1, imgWidth - left),
    height: clamp(Math.round(rect.height), 1, imgHeight - top),
  };
}

/** Landmarks moved from photo to frame coordinates. */
export function toFrame(points: readonly Point[], rect: FrameRect): Point[] {
  return points.map((p) => ({ x: (p.x - rect.left) * rect.scale, y: (p.y - rect.top) * rect.scale }));
}

export function mean(points: readonly Point[], from: number, to: number): Point {
  let x = 0;
  let y = 0;
  for (let i = from; i < to; i++) {
    x += points[i]!.x;
    y += points[i]!.y;
  }
  return { x: x / (to - from), y: y / (to - from) };
}

function midpoint(a: Point, b: Point): Point {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
