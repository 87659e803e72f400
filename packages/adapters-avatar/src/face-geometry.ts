import { mean } from './framing.js';
import type { PixelBox, Point } from './rgb-image.js';

/** A polyline y = f(x) sampled at increasing x (linear between, flat beyond the ends). */
export class Polyline {
  private readonly xs: Float64Array;
  private readonly ys: Float64Array;
  constructor(points: readonly Point[]) {
    const sorted = [...points].sort((a, b) => a.x - b.x);
    this.xs = Float64Array.from(sorted, (p) => p.x);
    this.ys = Float64Array.from(sorted, (p) => p.y);
  }
  at(x: number): number {
    const xs = this.xs;
    const n = xs.length;
    if (x <= xs[0]!) return this.ys[0]!;
    if (x >= xs[n - 1]!) return this.ys[n - 1]!;
    let i = 1;
    while (xs[i]! < x) i++;
    const t = (x - xs[i - 1]!) / (xs[i]! - xs[i - 1]! || 1);
    return this.ys[i - 1]! + t * (this.ys[i]! - this.ys[i - 1]!);
  }
}

/** A function of u tabulated every 0.5 px over [from, to] for O(1) lookups in the pixel loop. */
export class CurveTable {
  private readonly values: Float32Array;
  constructor(
    private readonly from: number,
    to: number,
    f: (u: number) => number,
  ) {
    const n = Math.max(2, Math.ceil((to - from) * 2) + 1);
    this.values = Float32Array.from({ length: n }, (_, i) => f(from + i / 2));
  }
  at(u: number): number {
    const x = (u - this.from) * 2;
    const n = this.values.length;
    if (x <= 0) return this.values[0]!;
    if (x >= n - 1) return this.values[n - 1]!;
    const i = x | 0;
    const t = x - i;
    return this.values[i]! + (this.values[i + 1]! - this.values[i]!) * t;
  }
}

/**
 * What the warper needs to know about the reference face, derived once from its 68 landmarks in
 * frame coordinates. The mouth lives in a local frame (u along the lips, v downwards) so a tilted
 * head opens its mouth along its own axis.
 */
export interface FaceGeometry {
  eyeDistance: number;
  /** The 68 landmarks themselves (the eyelids are fitted from them and the picture, see Eyelids). */
  landmarks: readonly Point[];
  mouth: {
    centre: Point;
    cos: number;
    sin: number;
    /** Half the outer lip width (corner to corner). */
    halfWidth: number;
    /** Half the inner lip width (where the opening is). */
    innerHalfWidth: number;
    /** u of the middle of the inner corners (the opening's centre across). */
    innerMid: number;
    /** The inner edge of the upper lip, v(u) (equal to lowerInner where the lips touch). */
    upperInner: Polyline;
    /** The inner edge of the lower lip, v(u). */
    lowerInner: Polyline;
    /** How far apart the lips are in the photo at the centre (0 for a closed mouth). */
    restGap: number;
    /** The nose base (v < 0): where the upper lip's lift fades out. */
    noseV: number;
    /** Bottom of the lower lip. */
    lowerLipV: number;
    /** The jaw contour, v(u). */
    jaw: Polyline;
    /** Half the jaw width at mouth level. */
    jawHalfWidth: number;
    /** Chin tip (landmark 8). */
    chinV: number;
  };
  /** Face centre and size for the head-motion mask. */
  head: { centre: Point; radiusX: number; radiusY: number; pivot: Point };
}

export function faceGeometry(lm: readonly Point[]): FaceGeometry {
  const leftEye = mean(lm, 36, 42);
  const rightEye = mean(lm, 42, 48);
  const eyeDistance = Math.hypot(rightEye.x - leftEye.x, rightEye.y - leftEye.y);

  const c = mean(lm, 60, 68);
  const angle = Math.atan2(lm[54]!.y - lm[48]!.y, lm[54]!.x - lm[48]!.x);
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const local = (p: Point): Point => {
    const dx = p.x - c.x;
    const dy = p.y - c.y;
    return { x: dx * cos + dy * sin, y: -dx * sin + dy * cos };
  };
  const upper = [60, 61, 62, 63, 64].map((i) => local(lm[i]!));
  const lower = [60, 67, 66, 65, 64].map((i) => local(lm[i]!));
  // the lower edge never above the upper one (the landmark model can cross them on closed lips)
  for (let i = 0; i < 5; i++) {
    if (lower[i]!.y < upper[i]!.y) {
      const m = (lower[i]!.y + upper[i]!.y) / 2;
      lower[i] = { x: lower[i]!.x, y: m };
      upper[i] = { x: upper[i]!.x, y: m };
    }
  }
  const upperInner = new Polyline(upper);
  const lowerInner = new Polyline(lower);
  const halfWidth = Math.hypot(lm[54]!.x - lm[48]!.x, lm[54]!.y - lm[48]!.y) / 2;
  const innerHalfWidth = Math.max(halfWidth * 0.6, Math.hypot(lm[64]!.x - lm[60]!.x, lm[64]!.y - lm[60]!.y) / 2);
  const jawPoints = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((i) => local(lm[i]!));
  const jawHalfWidth = (Math.abs(local(lm[4]!).x) + Math.abs(local(lm[12]!).x)) / 2;
  const lowerLipV = Math.max(local(lm[57]!).y, local(lm[56]!).y, local(lm[58]!).y);

  const chin = lm[8]!;
  const eyesMid = { x: (leftEye.x + rightEye.x) / 2, y: (leftEye.y + rightEye.y) / 2 };
  const eyeChin = Math.hypot(chin.x - eyesMid.x, chin.y - eyesMid.y);
  const faceHalfWidth = Math.hypot(lm[16]!.x - lm[0]!.x, lm[16]!.y - lm[0]!.y) / 2;
  return {
    eyeDistance,
    landmarks: lm,
    mouth: {
      centre: c,
      cos,
      sin,
      halfWidth,
      innerHalfWidth,
      innerMid: (local(lm[60]!).x + local(lm[64]!).x) / 2,
      upperInner,
      lowerInner,
      restGap: Math.max(0, lowerInner.at(0) - upperInner.at(0)),
      noseV: local(lm[33]!).y,
      lowerLipV,
      jaw: new Polyline(jawPoints),
      jawHalfWidth: Math.max(jawHalfWidth, halfWidth * 1.3),
      chinV: local(chin).y,
    },
    head: {
      centre: { x: (eyesMid.x + chin.x) / 2, y: eyesMid.y + (chin.y - eyesMid.y) * 0.25 },
      radiusX: faceHalfWidth * 1.25,
      radiusY: eyeChin * 1.45,
      pivot: { x: chin.x, y: chin.y + eyeChin * 0.6 },
    },
  };
}

/** The lips' box (landmarks 48-67) and a margin of a quarter of the mouth's half width around it. */
export function lipsBox(geo: FaceGeometry): PixelBox {
  const lips = geo.landmarks.slice(48, 68);
  const pad = 0.25 * geo.mouth.halfWidth;
  return {
    x0: Math.min(...lips.map((p) => p.x)) - pad,
    y0: Math.min(...lips.map((p) => p.y)) - pad,
    x1: Math.max(...lips.map((p) => p.x)) + pad,
    y1: Math.max(...lips.map((p) => p.y)) + pad,
  };
}
