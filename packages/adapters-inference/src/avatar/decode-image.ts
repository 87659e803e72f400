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

/**
 * Decodes a PNG / JPEG / WEBP (anything libvips reads) to upright sRGB RGB24: EXIF orientation
 * applied, greyscale and CMYK converted to sRGB, transparency flattened onto white (a cut-out
 * portrait on a transparent background gets a plain backdrop, not black). With `maxSide`, reduced
 * to fit inside maxSide x maxSide while decoding (libvips shrinks a JPEG or WebP on load).
 */
export async function decodeImage(bytes: Uint8Array, options: { maxSide?: number } = {}): Promise<RgbImage> {
  let pipeline = sharp()(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' }).rotate();
  if (options.maxSide !== undefined) {
    pipeline = pipeline.resize({ width: options.maxSide, height: options.maxSide, fit: 'inside', withoutEnlargement: true, kernel: 'lanczos3' });
  }
  const { data, info } = await pipeline
    .flatten({ background: { r: 255, g: 255, b: 255 } })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`decoded ${info.channels} channels, expected RGB`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/**
 * The photo's upright size (EXIF orientation applied) from its header, before anything is decoded,
 * and whether it shrinks on load (JPEG and WebP do; a PNG is decoded whole whatever size is asked).
 */
export async function imageLayout(bytes: Uint8Array): Promise<{ width: number; height: number; shrinksOnLoad: boolean }> {
  const meta = await sharp()(bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
  if (!meta.width || !meta.height) throw new Error('the image has no dimensions');
  const sideways = (meta.orientation ?? 1) >= 5;
  const shrinksOnLoad = meta.format === 'jpeg' || meta.format === 'webp';
  return sideways ? { width: meta.height, height: meta.width, shrinksOnLoad } : { width: meta.width, height: meta.height, shrinksOnLoad };
}

/** The image scaled so its longer side is at most `maxSide` (detection needs no more), and the factor. */
export async function downscale(image: RgbImage, maxSide: number): Promise<{ image: RgbImage; scale: number }> {
  const scale = Math.min(1, maxSide / Math.max(image.width, image.height));
  if (scale === 1) return { image, scale };
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  const { data } = await sharp()(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { image: { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width, height }, scale: width / image.width };
}
