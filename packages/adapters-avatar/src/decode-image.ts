import { createRequire } from 'node:module';
import type { RgbImage } from './rgb-image.js';

type Sharp = typeof import('sharp').default;
let sharpModule: Sharp | null = null;

/** sharp, loaded lazily (libvips is large) and once. */
export function sharp(): Sharp {
  sharpModule ??= createRequire(import.meta.url)('sharp') as Sharp;
  return sharpModule;
}

/** Most pixels a reference photo may have (a decompression bomb is refused before decoding). */
export const MAX_IMAGE_PIXELS = 40_000_000;

/** What decodeImage may do besides decoding: scale to a size. */
export interface DecodeOptions {
  /**
   * Scaled to exactly this size (lanczos) while decoding. libvips decodes a JPEG at 1/2, 1/4 or 1/8
   * straight from its DCT blocks when the reduction is 3x or more (sharp's shrink-on-load, which
   * leaves the last factor below 3 to the lanczos step), a WebP at any scale; other formats are
   * decoded whole first. Below 3x the pixels equal a whole decode then downscale() to that size.
   */
  size?: { width: number; height: number };
}

/**
 * Decodes a PNG / JPEG / WEBP (anything libvips reads) to upright sRGB RGB24: EXIF orientation
 * applied, greyscale and CMYK converted to sRGB, transparency flattened onto white (a cut-out
 * portrait on a transparent background gets a plain backdrop, not black). One libvips pipeline
 * whatever the options, so every copy of a photo gets the same colour handling.
 */
export async function decodeImage(bytes: Uint8Array, options: DecodeOptions = {}): Promise<RgbImage> {
  let pipeline = sharp()(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' }).rotate();
  const { size } = options;
  if (size) {
    pipeline = pipeline.resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3', fastShrinkOnLoad: true });
  }
  return toRgb(pipeline);
}

/** The colour handling every decode shares: transparency onto white, sRGB, three channels. */
async function toRgb(pipeline: ReturnType<Sharp>): Promise<RgbImage> {
  const { data, info } = await pipeline
    .flatten({ background: { r: 255, g: 255, b: 255 } })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`decoded ${info.channels} channels, expected RGB`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** An upright region of the photo and the size it is scaled to. */
export interface ImageRegion {
  left: number;
  top: number;
  width: number;
  height: number;
  outWidth: number;
  outHeight: number;
}

/**
 * Only this upright region of the photo, scaled to outWidth x outHeight (lanczos), in one libvips
 * pipeline: the rows below it are never decoded, the photo is never held whole. The region is cut
 * from the pixels as stored and the small result turned upright afterwards: libvips turns a photo
 * stored sideways (EXIF orientation 5-8, most phone portraits) whole, in memory, before cutting.
 */
export async function decodeRegion(bytes: Uint8Array, header: ImageHeader, region: ImageRegion): Promise<RgbImage> {
  const o = header.orientation;
  const sideways = o >= 5;
  const [storedWidth, storedHeight] = sideways ? [header.height, header.width] : [header.width, header.height];
  const { left: l, top: t, width: w, height: h } = region;
  // the region's box in the stored pixels, for each EXIF orientation (upright = orientation applied)
  const stored = [
    { left: l, top: t, width: w, height: h },
    { left: storedWidth - l - w, top: t, width: w, height: h },
    { left: storedWidth - l - w, top: storedHeight - t - h, width: w, height: h },
    { left: l, top: storedHeight - t - h, width: w, height: h },
    { left: t, top: l, width: h, height: w },
    { left: t, top: storedHeight - l - w, width: h, height: w },
    { left: storedWidth - t - h, top: storedHeight - l - w, width: h, height: w },
    { left: storedWidth - t - h, top: l, width: h, height: w },
  ][o - 1]!;
  const [outWidth, outHeight] = sideways ? [region.outHeight, region.outWidth] : [region.outWidth, region.outHeight];
  const cut = await toRgb(
    sharp()(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' })
      .extract(stored)
      .resize(outWidth, outHeight, { fit: 'fill', kernel: 'lanczos3' }),
  );
  return o === 1 ? cut : upright(cut, o);
}

/** A small decoded picture turned upright by its EXIF orientation (2-8). */
function upright(image: RgbImage, orientation: number): RgbImage {
  const { width: sw, height: sh } = image;
  const [width, height] = orientation >= 5 ? [sh, sw] : [sw, sh];
  // where upright (x, y) was in the stored picture
  const from: (x: number, y: number) => [number, number] = [
    (x: number, y: number): [number, number] => [x, y],
    (x: number, y: number): [number, number] => [sw - 1 - x, y],
    (x: number, y: number): [number, number] => [sw - 1 - x, sh - 1 - y],
    (x: number, y: number): [number, number] => [x, sh - 1 - y],
    (x: number, y: number): [number, number] => [y, x],
    (x: number, y: number): [number, number] => [y, sh - 1 - x],
    (x: number, y: number): [number, number] => [sw - 1 - y, sh - 1 - x],
    (x: number, y: number): [number, number] => [sw - 1 - y, x],
  ][orientation - 1]!;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [fx, fy] = from(x, y);
      data.set(image.data.subarray((fy * sw + fx) * 3, (fy * sw + fx) * 3 + 3), (y * width + x) * 3);
    }
  }
  return { data, width, height };
}

/** A photo's format and upright size (EXIF orientation applied), read from its header: nothing is decoded. */
export interface ImageHeader {
  format: string;
  width: number;
  height: number;
  /** EXIF orientation, 1-8 (1: stored upright). */
  orientation: number;
}

export async function imageHeader(bytes: Uint8Array): Promise<ImageHeader> {
  const meta = await sharp()(bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
  const { width, height } = meta.autoOrient ?? meta;
  if (!width || !height) throw new Error('the image has no dimensions');
  const orientation = meta.orientation && meta.orientation >= 1 && meta.orientation <= 8 ? meta.orientation : 1;
  return { format: meta.format ?? 'unknown', width, height, orientation };
}

/**
 * Whether decodeImage(..., { size }) at this share of the photo's size decodes less than the whole
 * photo: a JPEG reduced 3x or more (sharp's rule for libjpeg's DCT scaling), a WebP reduced at all.
 */
export function shrinksOnLoad(header: ImageHeader, scale: number): boolean {
  return (header.format === 'jpeg' && scale <= 1 / 3) || (header.format === 'webp' && scale < 1);
}

/** The size of an image scaled so its longer side is at most `maxSide`, and the factor (downscale()'s rounding). */
export function fitInside(width: number, height: number, maxSide: number): { width: number; height: number; scale: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  if (scale === 1) return { width, height, scale };
  const w = Math.max(1, Math.round(width * scale));
  return { width: w, height: Math.max(1, Math.round(height * scale)), scale: w / width };
}

/** The image scaled so its longer side is at most `maxSide` (detection needs no more), and the factor. */
export async function downscale(image: RgbImage, maxSide: number): Promise<{ image: RgbImage; scale: number }> {
  const { width, height, scale } = fitInside(image.width, image.height, maxSide);
  if (scale === 1) return { image, scale };
  const { data } = await sharp()(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { image: { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height }, scale };
}
