import type { PixelBox } from './edge-blur.js';

/**
 * Blurs what was painted into a frame as much as the photo around it is blurred: the painted
 * pixels (coverage in `mask`, 0-255) and a feathered band around them are replaced by the frame
 * seen through a Gaussian of the photo's own edge sigma (`kernel`), so the painted edges, teeth and
 * corners are as soft as the lips they meet, and the lips bleed into the opening the way a camera
 * blurs them. Pixels further than about two sigmas from anything painted are left as they are.
 *
 * Only the painted box grown by the kernel's radius is touched; `scratch` keeps its buffers from one
 * frame to the next.
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
  const x1 = Math.min(width, painted.x1 + r);
  const y1 = Math.min(height, painted.y1 + r);
  const w = x1 - x0;
  const h = y1 - y0;
  if (w <= 0 || h <= 0) return;
  const n = w * h * 4;
  if (scratch.a.length < n) {
    scratch.a = new Float32Array(n);
    scratch.b = new Float32Array(n);
  }
  const src = scratch.a;
  const tmp = scratch.b;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = (y + y0) * width + x + x0;
      const i = (y * w + x) * 4;
      src[i] = out[p * 3]!;
      src[i + 1] = out[p * 3 + 1]!;
      src[i + 2] = out[p * 3 + 2]!;
      src[i + 3] = mask[p]! / 255;
    }
  }
  // horizontal pass into tmp, edges clamped to the region
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let k = -r; k <= r; k++) {
        const xx = x + k < 0 ? 0 : x + k >= w ? w - 1 : x + k;
        const j = (y * w + xx) * 4;
        const c = kernel[k + r]!;
        s0 += c * src[j]!;
        s1 += c * src[j + 1]!;
        s2 += c * src[j + 2]!;
        s3 += c * src[j + 3]!;
      }
      const i = (y * w + x) * 4;
      tmp[i] = s0;
      tmp[i + 1] = s1;
      tmp[i + 2] = s2;
      tmp[i + 3] = s3;
    }
  }
  // vertical pass, blended into the frame by the blurred coverage (feathered: full at the painted edge)
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let k = -r; k <= r; k++) {
        const yy = y + k < 0 ? 0 : y + k >= h ? h - 1 : y + k;
        const j = (yy * w + x) * 4;
        const c = kernel[k + r]!;
        s0 += c * tmp[j]!;
        s1 += c * tmp[j + 1]!;
        s2 += c * tmp[j + 2]!;
        s3 += c * tmp[j + 3]!;
      }
      const weight = s3 >= 0.5 ? 1 : 2 * s3;
      if (weight <= 0.004) continue;
      const i = (y * w + x) * 4;
      const o = ((y + y0) * width + x + x0) * 3;
      out[o] = src[i]! + (s0 - src[i]!) * weight + 0.5;
      out[o + 1] = src[i + 1]! + (s1 - src[i + 1]!) * weight + 0.5;
      out[o + 2] = src[i + 2]! + (s2 - src[i + 2]!) * weight + 0.5;
    }
  }
}

/** Reusable buffers for softenPainted (grown to the largest region seen). */
export interface SoftenScratch {
  a: Float32Array;
  b: Float32Array;
}
