import type { PixelBox } from './rgb-image.js';
import { blurColumns, blurRows } from './separable-blur.js';

/** Reusable buffers for softenPainted (grown to the largest region seen). */
export interface SoftenScratch {
  rgb: Float32Array;
  across: Float32Array;
  coverage: Float32Array;
  weight: Float32Array;
  spans: Int32Array;
}

export function softenScratch(): SoftenScratch {
  return {
    rgb: new Float32Array(0),
    across: new Float32Array(0),
    coverage: new Float32Array(0),
    weight: new Float32Array(0),
    spans: new Int32Array(0),
  };
}

/**
 * Blurs what was painted into a frame as much as the photo around it is blurred: the painted
 * pixels (coverage in `mask`, 0-255) and a feathered band around them are replaced by the frame
 * seen through a Gaussian of the photo's own edge sigma (`kernel`), so the painted edges, teeth and
 * corners are as soft as the lips they meet, and the lips bleed into the opening the way a camera
 * blurs them. Pixels further than about two sigmas from anything painted are left as they are.
 *
 * Only the painted box grown by the kernel's radius is read, and per row only the span the blurred
 * coverage reaches is blurred (the box's corners, outside the lens-shaped opening, are skipped).
 */
export function softenPainted(
  out: Uint8Array,
  width: number,
  height: number,
  mask: Uint8Array,
  painted: PixelBox,
  kernel: Float32Array,
  scratch: SoftenScratch,
): void {
  const r = (kernel.length - 1) / 2;
  const x0 = Math.max(0, painted.x0 - r);
  const y0 = Math.max(0, painted.y0 - r);
  const w = Math.min(width, painted.x1 + r) - x0;
  const h = Math.min(height, painted.y1 + r) - y0;
  if (w <= 0 || h <= 0) return;
  if (scratch.coverage.length < w * h) {
    scratch.rgb = new Float32Array(w * h * 3);
    scratch.across = new Float32Array(w * h * 3);
    scratch.coverage = new Float32Array(w * h);
    scratch.weight = new Float32Array(w * h);
  }
  // a region can be taller than a larger one before it
  if (scratch.spans.length < h * 2) scratch.spans = new Int32Array(h * 2);
  const { rgb, across, coverage, weight, spans } = scratch;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = (y + y0) * width + x + x0;
      const i = y * w + x;
      rgb[i * 3] = out[p * 3]!;
      rgb[i * 3 + 1] = out[p * 3 + 1]!;
      rgb[i * 3 + 2] = out[p * 3 + 2]!;
      coverage[i] = mask[p]! / 255;
    }
  }
  // the coverage blurred first (one channel): the blend weight, full at the painted edge, and per
  // row the span where it is not zero
  blurRows(coverage, weight, w, h, 1, kernel, null);
  blurColumns(weight, coverage, w, h, 1, kernel, null);
  for (let y = 0; y < h; y++) {
    let first = w;
    let end = 0;
    for (let x = 0; x < w; x++) {
      const k = coverage[y * w + x]!;
      weight[y * w + x] = k >= 0.5 ? 1 : 2 * k;
      if (k > 0.002) {
        if (first === w) first = x;
        end = x + 1;
      }
    }
    spans[y * 2] = first;
    spans[y * 2 + 1] = end;
  }
  // the colour: across each row where a row within the kernel's reach needs it, then down the spans
  const rowNeeds = new Int32Array(2);
  blurRows(rgb, across, w, h, 3, kernel, (y) => {
    rowNeeds[0] = w;
    rowNeeds[1] = 0;
    for (let j = Math.max(0, y - r); j <= Math.min(h - 1, y + r); j++) {
      rowNeeds[0] = Math.min(rowNeeds[0]!, spans[j * 2]!);
      rowNeeds[1] = Math.max(rowNeeds[1]!, spans[j * 2 + 1]!);
    }
    return rowNeeds;
  });
  blurColumns(across, rgb, w, h, 3, kernel, (y) => spans.subarray(y * 2, y * 2 + 2));
  for (let y = 0; y < h; y++) {
    for (let x = spans[y * 2]!, end = spans[y * 2 + 1]!; x < end; x++) {
      const i = y * w + x;
      const k = weight[i]!;
      const o = ((y + y0) * width + x + x0) * 3;
      out[o] = out[o]! + (rgb[i * 3]! - out[o]!) * k + 0.5;
      out[o + 1] = out[o + 1]! + (rgb[i * 3 + 1]! - out[o + 1]!) * k + 0.5;
      out[o + 2] = out[o + 2]! + (rgb[i * 3 + 2]! - out[o + 2]!) * k + 0.5;
    }
  }
}
