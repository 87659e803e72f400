/** Bilinear sample of an RGB24 image at (x, y) (clamped to its edges) into out[o..o+2]. */
export function sampleBilinear(base: Uint8Array, w: number, h: number, x: number, y: number, out: Uint8Array, o: number): void {
  if (x < 0) x = 0;
  else if (x > w - 1.001) x = w - 1.001;
  if (y < 0) y = 0;
  else if (y > h - 1.001) y = h - 1.001;
  const x0 = x | 0;
  const y0 = y | 0;
  const fx = x - x0;
  const fy = y - y0;
  const i = (y0 * w + x0) * 3;
  const j = i + w * 3;
  const w00 = (1 - fx) * (1 - fy);
  const w10 = fx * (1 - fy);
  const w01 = (1 - fx) * fy;
  const w11 = fx * fy;
  out[o] = base[i]! * w00 + base[i + 3]! * w10 + base[j]! * w01 + base[j + 3]! * w11 + 0.5;
  out[o + 1] = base[i + 1]! * w00 + base[i + 4]! * w10 + base[j + 1]! * w01 + base[j + 4]! * w11 + 0.5;
  out[o + 2] = base[i + 2]! * w00 + base[i + 5]! * w10 + base[j + 2]! * w01 + base[j + 5]! * w11 + 0.5;
}
