// One-dimensional convolution passes over interleaved float images (a separable blur is one of each).
// One or three channels; edges clamped. `span(y)` limits a row to the columns [from, to) it
// returns (all of them when null).

type Span = ((y: number) => Int32Array) | null;

/** Each row of `src` convolved with `kernel` into `dst`. */
export function blurRows(
  src: Float32Array,
  dst: Float32Array,
  w: number,
  h: number,
  channels: 1 | 3,
  kernel: Float32Array,
  span: Span,
): void {
  convolve(src, dst, w, h, channels, kernel, span, 1);
}

/** Each column of `src` convolved with `kernel` into `dst`. */
export function blurColumns(
  src: Float32Array,
  dst: Float32Array,
  w: number,
  h: number,
  channels: 1 | 3,
  kernel: Float32Array,
  span: Span,
): void {
  convolve(src, dst, w, h, channels, kernel, span, w);
}

/** `stride` 1 convolves along rows, w along columns. */
function convolve(
  src: Float32Array,
  dst: Float32Array,
  w: number,
  h: number,
  channels: 1 | 3,
  kernel: Float32Array,
  span: Span,
  stride: number,
): void {
  const r = (kernel.length - 1) / 2;
  const along = stride === 1;
  for (let y = 0; y < h; y++) {
    const limits = span?.(y);
    const from = limits ? limits[0]! : 0;
    const to = limits ? limits[1]! : w;
    for (let x = from; x < to; x++) {
      const at = along ? x : y;
      const size = along ? w : h;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      for (let k = -r; k <= r; k++) {
        const t = at + k < 0 ? 0 : at + k >= size ? size - 1 : at + k;
        const j = (along ? y * w + t : t * w + x) * channels;
        const c = kernel[k + r]!;
        s0 += c * src[j]!;
        if (channels === 3) {
          s1 += c * src[j + 1]!;
          s2 += c * src[j + 2]!;
        }
      }
      const i = (y * w + x) * channels;
      dst[i] = s0;
      if (channels === 3) {
        dst[i + 1] = s1;
        dst[i + 2] = s2;
      }
    }
  }
}
