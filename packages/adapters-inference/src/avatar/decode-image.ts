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
 * portrait on a transparent background gets a plain backdrop, not black).
 */
export async function decodeImage(bytes: Uint8Array): Promise<RgbImage> {
  return toRgb(uprightRgb(bytes));
}

/**
 * The photo decoded straight to at most `maxSide` on its longer side (never enlarged). A JPEG is
 * decoded at 1/2, 1/4 or 1/8 scale by the decoder itself (libvips' shrink-on-load) before the
 * final resize, so a copy for the face detector costs a fraction of a full decode.
 */
export async function decodeImageAtMost(bytes: Uint8Array, maxSide: number): Promise<RgbImage> {
  return toRgb(uprightRgb(bytes).resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true, kernel: 'lanczos3' }));
}

/** The decode pipeline every copy shares: EXIF rotation, transparency on white, sRGB, no alpha. */
function uprightRgb(bytes: Uint8Array) {
  return sharp()(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' })
    .rotate()
    .flatten({ background: { r: 255, g: 255, b: 255 } })
    .toColourspace('srgb')
    .removeAlpha();
}

async function toRgb(pipeline: ReturnType<typeof uprightRgb>): Promise<RgbImage> {
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`decoded ${info.channels} channels, expected RGB`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}
