import { sampleBilinear } from './bilinear.js';
import { CurveTable } from './face-geometry.js';
import type { PixelBox, Point, RgbImage } from './rgb-image.js';

/** Where a backward-mapped pixel comes from; `interior` -2 marks a lid pixel that Eyelids.paint() draws. */
export interface SourcePixel {
  x: number;
  y: number;
  interior: number;
}

/** One eye in its own frame: u along the corner-to-corner axis, v across it (down the face). */
interface EyeFrame {
  centre: Point;
  cos: number;
  sin: number;
  /** The opening to close: upper and lower edge, v(u), meeting at the (widened) corners. */
  top: CurveTable;
  bottom: CurveTable;
  /** Where the lid skin that slides down starts (the crease region above the eye), v(u). */
  skinTop: CurveTable;
  uMin: number;
  uMax: number;
  box: PixelBox;
  /** Spacing of the taps that average a lid pixel across (at full cover). */
  blurStep: number;
  /** The lashes' depth above the upper edge: left out of the skin that slides down. */
  lashGap: number;
  /** The lid's own colour (the light part of the skin that slides down), RGB. */
  lid: [number, number, number];
}

/** Iris diameter as a share of the eye's corner-to-corner width (about 12 of 28-30 mm). */
const IRIS_OF_WIDTH = 0.42;
/** The opening is widened past the landmark corners by this share of the eye width on each side. */
const CORNER_MARGIN = 0.08;
/** ... and past the landmark lids by this share of the eye width (the 68-point net reads eyes at ~10 px). */
const LID_MARGIN = 0.05;

/**
 * Eyelids of the reference photo: what a blink covers, and the backward map that closes it.
 *
 * The 68 landmarks place an eye within a few pixels, which is a third of an eye's height in a
 * 640 px frame: on tilted heads, downcast eyes and eyes with heavy liner they sit on the upper lid
 * or above the iris, and a lid that only travels to the landmarks' lower edge leaves the iris in
 * sight (issue 21: no visible blink over 14 s on one of face-api's sample photos). So each eye's
 * opening is the landmarks' lens, widened a little, united with the iris found in the picture (the
 * darkest disc against its ring, near the landmarks), and everything is done in the eye's own
 * frame, so a tilted eye closes along its own axis.
 *
 * Closing: the skin between the crease and the upper edge slides down, stretched, to the lid line
 * (the eyeball is hidden, not squeezed); at full closure the lid meets the lower edge, with a lash
 * line along it.
 */
export class Eyelids {
  private readonly eyes: EyeFrame[];
  readonly boxes: PixelBox[];
  /** The lid pixel map() found last (paint() draws it): its eye, where it samples, how it is drawn. */
  private readonly pixel = { eye: null as EyeFrame | null, u: 0, vs: 0, cover: 0, lash: 0 };
  private readonly tap = new Uint8Array(3);

  constructor(
    private readonly reference: RgbImage,
    landmarks: readonly Point[],
  ) {
    this.eyes = [36, 42].map((from) => eyeFrame(reference, landmarks, from));
    this.boxes = this.eyes.map((e) => e.box);
  }

  /** Backward map of a frame point for lid closure 0..1; leaves `src` alone outside the eyes. */
  map(qx: number, qy: number, closure: number, src: SourcePixel): void {
    for (const eye of this.eyes) {
      const b = eye.box;
      if (qx < b.x0 || qx >= b.x1 || qy < b.y0 || qy >= b.y1) continue;
      const dx = qx - eye.centre.x;
      const dy = qy - eye.centre.y;
      const u = dx * eye.cos + dy * eye.sin;
      const v = -dx * eye.sin + dy * eye.cos;
      if (u <= eye.uMin || u >= eye.uMax) return;
      const top = eye.top.at(u);
      const bottom = eye.bottom.at(u);
      if (bottom - top < 0.3) return;
      const skinTop = eye.skinTop.at(u);
      const lid = top + Math.min(1, closure) * (bottom - top);
      if (v < skinTop || v > lid) return;
      // the band ends above the upper lashes (they are drawn as the lash line instead of being
      // stretched into streaks), reaching that far as the lid starts moving
      const end = top - eye.lashGap * Math.min(1, closure * 3);
      const vs = skinTop + ((v - skinTop) * (end - skinTop)) / (lid - skinTop);
      src.x = eye.centre.x + u * eye.cos - vs * eye.sin;
      src.y = eye.centre.y + u * eye.sin + vs * eye.cos;
      src.interior = -2;
      const p = this.pixel;
      p.eye = eye;
      p.u = u;
      p.vs = vs;
      // how much of the eye this pixel covers (0 on the crease, 1 over the eye)
      p.cover = closure * smoothstep(skinTop, top, v);
      p.lash = closure > 0.3 ? 0.55 * closure * Math.max(0, Math.min(1, 1.8 - (lid - v))) : 0;
      return;
    }
  }

  /**
   * Draws the lid pixel map() found last into out[o..o+2]. Stretched over the eye, the band's hairs
   * and shadows would become streaks along the stretch, so the further a pixel covers the eye the
   * more it is averaged across (5 taps along the lid) and evened towards the lid's own colour; the
   * crease keeps its texture. The lash line darkens the lid's edge.
   */
  paint(out: Uint8Array, o: number): void {
    const { eye, u, vs, cover, lash } = this.pixel;
    if (!eye) return;
    const { data, width, height } = this.reference;
    const step = eye.blurStep * cover;
    let r = 0;
    let g = 0;
    let b = 0;
    for (let k = -2; k <= 2; k++) {
      const uk = u + k * step;
      sampleBilinear(
        data,
        width,
        height,
        eye.centre.x + uk * eye.cos - vs * eye.sin,
        eye.centre.y + uk * eye.sin + vs * eye.cos,
        this.tap,
        0,
      );
      r += this.tap[0]!;
      g += this.tap[1]!;
      b += this.tap[2]!;
    }
    const even = 0.3 * cover;
    const dark = 1 - lash;
    out[o] = (r / 5 + (eye.lid[0] - r / 5) * even) * dark;
    out[o + 1] = (g / 5 + (eye.lid[1] - g / 5) * even) * dark;
    out[o + 2] = (b / 5 + (eye.lid[2] - b / 5) * even) * dark;
  }
}

export function smoothstep(e0: number, e1: number, x: number): number {
  const t = Math.max(0, Math.min(1, (x - e0) / (e1 - e0)));
  return t * t * (3 - 2 * t);
}

function eyeFrame(image: RgbImage, lm: readonly Point[], from: number): EyeFrame {
  const p = (i: number): Point => lm[from + i]!;
  const inner = from === 36 ? p(3) : p(0);
  const outer = from === 36 ? p(0) : p(3);
  // u runs from the left corner to the right one in the picture, whatever the eye
  const [left, right] = inner.x < outer.x ? [inner, outer] : [outer, inner];
  const width = Math.max(4, Math.hypot(right.x - left.x, right.y - left.y));
  const angle = Math.atan2(right.y - left.y, right.x - left.x);
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const centre = { x: (left.x + right.x) / 2, y: (left.y + right.y) / 2 };
  const local = (q: Point): Point => {
    const dx = q.x - centre.x;
    const dy = q.y - centre.y;
    return { x: dx * cos + dy * sin, y: -dx * sin + dy * cos };
  };
  // landmark lens: corners 0 and 3, upper lid 1-2, lower lid 5-4
  const upper = [p(1), p(2)].map(local);
  const lower = [p(5), p(4)].map(local);
  const half = width / 2;
  const uMin = -half * (1 + 2 * CORNER_MARGIN);
  const uMax = half * (1 + 2 * CORNER_MARGIN);
  const lens = (u: number): number => {
    const t = u / (half * (1 + 2 * CORNER_MARGIN));
    return t * t < 1 ? Math.sqrt(1 - t * t) : 0;
  };
  const upperLm = piecewise([{ x: -half, y: 0 }, ...upper, { x: half, y: 0 }]);
  const lowerLm = piecewise([{ x: -half, y: 0 }, ...lower, { x: half, y: 0 }]);
  const margin = LID_MARGIN * width;
  let top = (u: number): number => Math.min(0, upperLm(u)) - margin * lens(u);
  let bottom = (u: number): number => Math.max(0, lowerLm(u)) + margin * lens(u);

  const iris = findIris(image, centre, cos, sin, width, (upperLm(0) + lowerLm(0)) / 2);
  if (iris) {
    // The whole iris inside the opening (the lids usually cover its top and touch its bottom): an
    // elliptic lens through the widened corners that passes its top and its bottom, taken where it
    // reaches further than the landmarks' (a union of smooth curves: no bulge round the disc).
    const a = half * (1 + 2 * CORNER_MARGIN);
    const at = Math.sqrt(Math.max(0.05, 1 - (iris.u / a) ** 2));
    const down = Math.max(0, iris.v + iris.r) / at;
    const up = Math.max(0, iris.r - iris.v) / at;
    const landmarkTop = top;
    const landmarkBottom = bottom;
    top = (u) => Math.min(landmarkTop(u), -up * lens(u));
    bottom = (u) => Math.max(landmarkBottom(u), down * lens(u));
  }
  // opening height at the centre, for the skin that slides down
  const height = Math.max(2, bottom(0) - top(0));
  const topTable = new CurveTable(uMin, uMax, (u) => top(u) * lens(u) ** 0.25);
  const bottomTable = new CurveTable(uMin, uMax, (u) => bottom(u) * lens(u) ** 0.25);
  // The skin that slides down comes from between the crease and the upper edge, never from the
  // brow (its lower edge: the brow landmarks' line, a little below): a dragged brow is what a raised
  // opening would otherwise pull into the lid.
  const brow = (from === 36 ? [17, 18, 19, 20, 21] : [22, 23, 24, 25, 26]).map((i) => local(lm[i]!));
  const browLine = piecewise(brow);
  const skinTable = new CurveTable(uMin, uMax, (u) => {
    const t = topTable.at(u);
    const below = browLine(u) + 0.08 * width;
    const wanted = t - 1.1 * height * Math.max(0.35, lens(u));
    return Math.min(t - 0.35 * height, Math.max(wanted, below + 0.3 * (t - below)));
  });

  // the box: every frame point the map can move
  const corners: Point[] = [];
  for (let u = uMin; u <= uMax; u += 1) {
    for (const v of [skinTable.at(u), bottomTable.at(u)]) {
      corners.push({ x: centre.x + u * cos - v * sin, y: centre.y + u * sin + v * cos });
    }
  }
  const box = {
    x0: Math.max(0, Math.floor(Math.min(...corners.map((c) => c.x)) - 1)),
    y0: Math.max(0, Math.floor(Math.min(...corners.map((c) => c.y)) - 1)),
    x1: Math.min(image.width, Math.ceil(Math.max(...corners.map((c) => c.x)) + 2)),
    y1: Math.min(image.height, Math.ceil(Math.max(...corners.map((c) => c.y)) + 2)),
  };
  const lid = lidColour(
    image,
    (u, v) => ({ x: centre.x + u * cos - v * sin, y: centre.y + u * sin + v * cos }),
    uMin,
    uMax,
    skinTable,
    topTable,
  );
  return {
    centre,
    cos,
    sin,
    top: topTable,
    bottom: bottomTable,
    skinTop: skinTable,
    uMin,
    uMax,
    box,
    lid,
    blurStep: 0.05 * width,
    lashGap: Math.min(0.06 * width, 0.4 * (topTable.at(0) - skinTable.at(0))),
  };
}

/**
 * The colour of the skin that slides down (between the crease line and the upper edge, middle half
 * of the eye): per channel the median of its lighter 60 %, so lashes, liner and brow hairs do not
 * darken it.
 */
function lidColour(
  image: RgbImage,
  toFrame: (u: number, v: number) => Point,
  uMin: number,
  uMax: number,
  skinTop: CurveTable,
  top: CurveTable,
): [number, number, number] {
  const pixels: [number, number, number, number][] = [];
  for (let u = uMin / 2; u <= uMax / 2; u += 1) {
    for (let v = skinTop.at(u); v < top.at(u); v += 1) {
      const p = toFrame(u, v);
      const x = Math.max(0, Math.min(image.width - 1, Math.round(p.x)));
      const y = Math.max(0, Math.min(image.height - 1, Math.round(p.y)));
      const o = (y * image.width + x) * 3;
      const r = image.data[o]!;
      const g = image.data[o + 1]!;
      const b = image.data[o + 2]!;
      pixels.push([0.299 * r + 0.587 * g + 0.114 * b, r, g, b]);
    }
  }
  if (pixels.length === 0) return [128, 128, 128];
  pixels.sort((a, b) => a[0] - b[0]);
  const light = pixels.slice(Math.floor(pixels.length * 0.4));
  const median = (c: 1 | 2 | 3): number => {
    const values = light.map((p) => p[c]).sort((a, b) => a - b);
    return values[values.length >> 1]!;
  };
  return [median(1), median(2), median(3)];
}

/** y(x) through the points (sorted by x), linear between them, flat beyond. */
function piecewise(points: Point[]): (x: number) => number {
  const pts = [...points].sort((a, b) => a.x - b.x);
  return (x) => {
    if (x <= pts[0]!.x) return pts[0]!.y;
    for (let i = 1; i < pts.length; i++) {
      if (x <= pts[i]!.x) {
        const a = pts[i - 1]!;
        const b = pts[i]!;
        return a.y + ((x - a.x) / (b.x - a.x || 1)) * (b.y - a.y);
      }
    }
    return pts[pts.length - 1]!.y;
  };
}

/**
 * The iris near the landmarks, in the eye's frame: the disc (radius from the eye width) whose mean
 * luminance is lowest against the ring around it, searched over the middle of the eye. Null when no
 * disc stands out (closed or tiny eyes, sunglasses): the landmarks then decide alone.
 */
function findIris(
  image: RgbImage,
  centre: Point,
  cos: number,
  sin: number,
  width: number,
  vMid: number,
): { u: number; v: number; r: number } | null {
  const r = Math.max(1.5, (IRIS_OF_WIDTH * width) / 2);
  const ring = r * 1.7;
  const extent = Math.ceil(ring + width * 0.35);
  // luminance of the eye's neighbourhood resampled into its own frame, 1 px steps
  const size = 2 * extent + 1;
  const lum = new Float32Array(size * size);
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const u = i - extent;
      const v = j - extent + vMid;
      const x = Math.round(centre.x + u * cos - v * sin);
      const y = Math.round(centre.y + u * sin + v * cos);
      const o = (Math.max(0, Math.min(image.height - 1, y)) * image.width + Math.max(0, Math.min(image.width - 1, x))) * 3;
      lum[j * size + i] = 0.299 * image.data[o]! + 0.587 * image.data[o + 1]! + 0.114 * image.data[o + 2]!;
    }
  }
  const offsets: { di: number; dj: number; inner: boolean }[] = [];
  for (let dj = -Math.ceil(ring); dj <= Math.ceil(ring); dj++) {
    for (let di = -Math.ceil(ring); di <= Math.ceil(ring); di++) {
      const d = Math.hypot(di, dj);
      if (d <= r) offsets.push({ di, dj, inner: true });
      else if (d <= ring) offsets.push({ di, dj, inner: false });
    }
  }
  let best: { u: number; v: number; contrast: number } | null = null;
  const reachU = Math.round(width * 0.3);
  const reachV = Math.round(width * 0.15);
  for (let cv = -reachV; cv <= reachV; cv++) {
    for (let cu = -reachU; cu <= reachU; cu++) {
      let inner = 0;
      let nInner = 0;
      let outer = 0;
      let nOuter = 0;
      for (const o of offsets) {
        const value = lum[(cv + extent + o.dj) * size + cu + extent + o.di]!;
        if (o.inner) {
          inner += value;
          nInner++;
        } else {
          outer += value;
          nOuter++;
        }
      }
      const contrast = outer / nOuter - inner / nInner;
      if (!best || contrast > best.contrast) best = { u: cu, v: cv + vMid, contrast };
    }
  }
  if (!best || best.contrast < 12) return null;
  return { u: best.u, v: best.v, r };
}
