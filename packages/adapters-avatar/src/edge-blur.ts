import type { PixelBox, RgbImage } from './rgb-image.js';
import { blurColumns, blurRows } from './separable-blur.js';

/** The blur added to the photo to measure its own (re-blur method below). */
const PROBE_SIGMA = 1.5;
/** Share of the region's pixels, the steepest, that count as edges. */
const EDGE_SHARE = 0.03;

/**
 * How soft the photo's edges are inside `box`: the sigma (px) of the Gaussian that would blur a
 * sharp picture into it. A small face framed at 640 px is an upscaled, soft picture; whatever is
 * painted into it must be as soft, or it reads as a sticker.
 *
 * Re-blur method: blurring a step edge of sigma s by a known sigma b lowers its steepest gradient by
 * r = sqrt(s^2 + b^2) / s, whatever the edge's height, so s = b / sqrt(r^2 - 1). r is taken at the
 * steepest pixels of the region (its edges; flat skin only has noise) and the median kept. A
 * pixel-sharp edge reads as about 0.8 px (a central difference spreads it over two pixels).
 */
export function edgeBlur(image: RgbImage, box: PixelBox): number {
  const x0 = Math.max(0, Math.floor(box.x0));
  const y0 = Math.max(0, Math.floor(box.y0));
  const x1 = Math.min(image.width, Math.ceil(box.x1));
  const y1 = Math.min(image.height, Math.ceil(box.y1));
  const w = x1 - x0;
  const h = y1 - y0;
  if (w < 8 || h < 8) return 1;
  const lum = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = ((y + y0) * image.width + x + x0) * 3;
      lum[y * w + x] = 0.299 * image.data[i]! + 0.587 * image.data[i + 1]! + 0.114 * image.data[i + 2]!;
    }
  }
  const sharp = gradientMagnitude(lum, w, h);
  const soft = gradientMagnitude(gaussianBlur(lum, w, h, PROBE_SIGMA), w, h);
  const margin = Math.ceil(3 * PROBE_SIGMA) + 1;
  const candidates: number[] = [];
  for (let y = margin; y < h - margin; y++) {
    for (let x = margin; x < w - margin; x++) candidates.push(y * w + x);
  }
  if (candidates.length === 0) return 1;
  candidates.sort((a, b) => sharp[b]! - sharp[a]!);
  const edges = candidates.slice(0, Math.max(1, Math.round(EDGE_SHARE * candidates.length)));
  const sigmas = edges.map((i) => {
    const r = sharp[i]! / Math.max(1e-6, soft[i]!);
    return r <= 1.02 ? 10 * PROBE_SIGMA : PROBE_SIGMA / Math.sqrt(r * r - 1);
  });
  sigmas.sort((a, b) => a - b);
  return sigmas[sigmas.length >> 1]!;
}

function gradientMagnitude(lum: Float32Array, w: number, h: number): Float32Array {
  const out = new Float32Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const gx = (lum[i + 1]! - lum[i - 1]!) / 2;
      const gy = (lum[i + w]! - lum[i - w]!) / 2;
      out[i] = Math.sqrt(gx * gx + gy * gy);
    }
  }
  return out;
}

/** Separable Gaussian of one channel, edges clamped. */
function gaussianBlur(values: Float32Array, w: number, h: number, sigma: number): Float32Array {
  const kernel = gaussianKernel(sigma);
  const across = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  blurRows(values, across, w, h, 1, kernel, null);
  blurColumns(across, out, w, h, 1, kernel, null);
  return out;
}

/** Normalised Gaussian weights over +/- 3 sigma (at least one tap each side). */
export function gaussianKernel(sigma: number): Float32Array {
  const r = Math.max(1, Math.ceil(3 * sigma));
  const k = new Float32Array(2 * r + 1);
  let sum = 0;
  for (let i = -r; i <= r; i++) {
    k[i + r] = Math.exp(-(i * i) / (2 * sigma * sigma));
    sum += k[i + r]!;
  }
  for (let i = 0; i < k.length; i++) k[i] = k[i]! / sum;
  return k;
}
