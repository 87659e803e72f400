// Measures of the painted mouth interior against the photo it is painted into (not a test file itself).
import { Polyline, type FaceGeometry } from '../src/face-geometry.js';
import type { PixelBox, RgbImage } from '../src/rgb-image.js';

type Rgb = [number, number, number];

export function luminanceAt(img: RgbImage, x: number, y: number): number {
  const i = (Math.min(img.height - 1, Math.max(0, Math.round(y))) * img.width + Math.min(img.width - 1, Math.max(0, Math.round(x)))) * 3;
  return 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

/** A point of the lips' own frame (u along the lips, v down) in frame pixels. */
function toFrame(geo: FaceGeometry, u: number, v: number): { x: number; y: number } {
  const m = geo.mouth;
  return { x: m.centre.x + u * m.cos - v * m.sin, y: m.centre.y + u * m.sin + v * m.cos };
}

/**
 * How far a line at `edge` dips below both its sides: the lip `reach` px outside it and the
 * interior `inside` px in (direction +1: inside is below). 0 when the edge is a plain step.
 */
function dip(img: RgbImage, geo: FaceGeometry, u: number, edge: number, outsideSign: number, reach: number, inside: number): number {
  const at = (v: number): number => {
    const p = toFrame(geo, u, v);
    return luminanceAt(img, p.x, p.y);
  };
  const a = edge + outsideSign * reach;
  const b = edge - outsideSign * inside;
  let darkest = Infinity;
  for (let t = 0; t <= 1.0001; t += 0.5 / Math.abs(b - a)) darkest = Math.min(darkest, at(a + (b - a) * t));
  return Math.max(0, Math.min(at(a), at(b)) - darkest);
}

/**
 * How far into each lip the outline measures look, per column u: half the lip's thickness in the
 * photo (outer contour 48-54 / 54-59 to inner 60-64 / 64-67), at least 2 px. The opening moves
 * the lips but keeps their thickness.
 */
function lipReach(geo: FaceGeometry): { upper: (u: number) => number; lower: (u: number) => number } {
  const m = geo.mouth;
  const local = (i: number) => {
    const p = geo.landmarks[i]!;
    const dx = p.x - m.centre.x;
    const dy = p.y - m.centre.y;
    return { x: dx * m.cos + dy * m.sin, y: -dx * m.sin + dy * m.cos };
  };
  const upperOuter = new Polyline([48, 49, 50, 51, 52, 53, 54].map(local));
  const lowerOuter = new Polyline([54, 55, 56, 57, 58, 59, 48].map(local));
  return {
    upper: (u) => Math.max(2, 0.5 * (m.upperInner.at(u) - upperOuter.at(u))),
    lower: (u) => Math.max(2, 0.5 * (lowerOuter.at(u) - m.lowerInner.at(u))),
  };
}

/**
 * The painted opening's outline: per column across the mouth (the lips' frame, 1 px apart), where
 * the painted mask (render's `painted` output) starts and ends, and how far the pixels at each of
 * those two edges dip below both the lip just outside and the interior just inside. A dark rim
 * drawn round the opening dips; a lip meeting a dark cavity is a step and does not. The 90th
 * percentile over every edge of every column.
 */
export function paintedOutline(
  frame: RgbImage,
  painted: Uint8Array,
  geo: FaceGeometry,
): { outline: number; columns: number; height: number } {
  const m = geo.mouth;
  const reach = lipReach(geo);
  const dips: number[] = [];
  let columns = 0;
  let height = 0;
  for (let u = m.innerMid - m.innerHalfWidth * 1.2; u <= m.innerMid + m.innerHalfWidth * 1.2; u += 1) {
    let top = NaN;
    let bottom = NaN;
    for (let v = m.noseV; v <= m.chinV; v += 0.5) {
      const p = toFrame(geo, u, v);
      const inside = painted[Math.round(p.y) * frame.width + Math.round(p.x)]! >= 128;
      if (inside && Number.isNaN(top)) top = v;
      if (inside) bottom = v;
    }
    if (Number.isNaN(top) || bottom - top < 3) continue;
    columns++;
    height = Math.max(height, bottom - top);
    const up = reach.upper(u);
    const low = reach.lower(u);
    dips.push(
      dip(frame, geo, u, top, -1, up, Math.min(up, (bottom - top) / 2)),
      dip(frame, geo, u, bottom, 1, low, Math.min(low, (bottom - top) / 2)),
    );
  }
  return { outline: percentile(dips, 0.9), columns, height };
}

/**
 * The photo's own lip line, measured the same way: per column across the inner lips, how far the
 * line between them (the middle of the photo's inner lip contour) dips below both lips.
 */
export function photoLipLine(photo: RgbImage, geo: FaceGeometry): number {
  const m = geo.mouth;
  const reach = lipReach(geo);
  const dips: number[] = [];
  for (let u = m.innerMid - m.innerHalfWidth * 0.8; u <= m.innerMid + m.innerHalfWidth * 0.8; u += 1) {
    const line = (m.upperInner.at(u) + m.lowerInner.at(u)) / 2;
    const half = (m.lowerInner.at(u) - m.upperInner.at(u)) / 2;
    dips.push(dip(photo, geo, u, line - half, -1, reach.upper(u), half + reach.lower(u)));
  }
  return percentile(dips, 0.9);
}

/** The box of the pixels with any painted coverage. */
export function paintedBox(painted: Uint8Array, width: number): PixelBox {
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (let p = 0; p < painted.length; p++) {
    if (painted[p] === 0) continue;
    const x = p % width;
    const y = (p - x) / width;
    box.x0 = Math.min(box.x0, x);
    box.y0 = Math.min(box.y0, y);
    box.x1 = Math.max(box.x1, x + 1);
    box.y1 = Math.max(box.y1, y + 1);
  }
  return box;
}

/** Chromaticity: the colour's share of each channel, less grey's third. */
function chroma(c: Rgb): Rgb {
  const s = Math.max(1, c[0] + c[1] + c[2]);
  return [c[0] / s - 1 / 3, c[1] / s - 1 / 3, c[2] / s - 1 / 3];
}

function meanRgb(img: RgbImage, pixels: number[]): Rgb {
  const sum: Rgb = [0, 0, 0];
  for (const p of pixels) {
    sum[0] += img.data[p * 3]!;
    sum[1] += img.data[p * 3 + 1]!;
    sum[2] += img.data[p * 3 + 2]!;
  }
  return [sum[0] / pixels.length, sum[1] / pixels.length, sum[2] / pixels.length];
}

const lum = (c: Rgb): number => 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];

/** The photo's skin: above the upper lip and on the chin, away from the mouth. */
export function photoSkin(photo: RgbImage, geo: FaceGeometry): Rgb {
  const m = geo.mouth;
  const pixels: number[] = [];
  for (let u = -0.5 * m.halfWidth; u <= 0.5 * m.halfWidth; u += 1) {
    for (const v of [0.6 * m.noseV, m.lowerLipV + 0.4 * (m.chinV - m.lowerLipV)]) {
      const p = toFrame(geo, u, v);
      pixels.push(Math.round(p.y) * photo.width + Math.round(p.x));
    }
  }
  return meanRgb(photo, pixels);
}

/**
 * The painted teeth (the brightest 5 % of the fully painted pixels) and cavity (the darkest 10 %)
 * against the photo's skin: the teeth's colour cast as a share of the skin's (how far their
 * chromaticity goes the skin's way: 0 grey, 1 as coloured as the skin) and the angle's cosine
 * between the two casts; each one's luminance over the skin's.
 */
export function paintedColours(frame: RgbImage, painted: Uint8Array, photo: RgbImage, geo: FaceGeometry) {
  const full: { p: number; l: number }[] = [];
  for (let p = 0; p < painted.length; p++) {
    if (painted[p] === 255)
      full.push({ p, l: 0.299 * frame.data[p * 3]! + 0.587 * frame.data[p * 3 + 1]! + 0.114 * frame.data[p * 3 + 2]! });
  }
  full.sort((a, b) => a.l - b.l);
  const teeth = meanRgb(
    frame,
    full.slice(Math.floor(0.95 * full.length)).map((e) => e.p),
  );
  const cavity = meanRgb(
    frame,
    full.slice(0, Math.max(1, Math.floor(0.1 * full.length))).map((e) => e.p),
  );
  const skin = photoSkin(photo, geo);
  const ct = chroma(teeth);
  const cs = chroma(skin);
  const ns = Math.hypot(...cs);
  const along = (ct[0] * cs[0] + ct[1] * cs[1] + ct[2] * cs[2]) / Math.max(1e-6, ns);
  return {
    teethCast: along / Math.max(1e-6, ns),
    teethCastCosine: along / Math.max(1e-6, Math.hypot(...ct)),
    teethOverSkin: lum(teeth) / lum(skin),
    cavityOverSkin: lum(cavity) / lum(skin),
    cavity: lum(cavity),
  };
}

/** Luminance below which `share` of the face's pixels lie (box of landmarks 17-67): its darkest shadows. */
export function faceShadow(photo: RgbImage, geo: FaceGeometry, share: number): number {
  const pts = geo.landmarks.slice(17);
  const values: number[] = [];
  for (let y = Math.round(Math.min(...pts.map((p) => p.y))); y < Math.max(...pts.map((p) => p.y)); y++) {
    for (let x = Math.round(Math.min(...pts.map((p) => p.x))); x < Math.max(...pts.map((p) => p.x)); x++)
      values.push(luminanceAt(photo, x, y));
  }
  return percentile(values, share);
}

/**
 * The painted opening's rim: the painted pixels (any coverage) within `width` px of an unpainted
 * one, i.e. where the interior meets the lips; with `lowerOnly`, only those with the unpainted
 * pixel below them (the lower lip: the upper edge of the paint may meet the photo's own interior).
 * Its darkness: the luminance that 10 % of the rim is darker than.
 */
export function paintedRimDarkness(frame: RgbImage, painted: Uint8Array, geo: FaceGeometry, width: number, lowerOnly: boolean): number {
  const w = frame.width;
  const down = { x: -geo.mouth.sin, y: geo.mouth.cos };
  const unpainted = (x: number, y: number): boolean => painted[Math.round(y) * w + Math.round(x)] === 0;
  const values: number[] = [];
  for (let y = width + 1; y < frame.height - width - 1; y++) {
    for (let x = width + 1; x < w - width - 1; x++) {
      if (painted[y * w + x] === 0) continue;
      let rim = false;
      if (lowerOnly) {
        for (let k = 1; k <= width && !rim; k++) rim = unpainted(x + k * down.x, y + k * down.y);
      } else {
        for (let dy = -width; dy <= width && !rim; dy++) {
          for (let dx = -width; dx <= width && !rim; dx++) rim = unpainted(x + dx, y + dy);
        }
      }
      if (rim) values.push(luminanceAt(frame, x, y));
    }
  }
  return percentile(values, 0.1);
}

/**
 * The darkest the photo is between its lips: per column across the middle 80 % of the mouth, the
 * darkest pixel from 1 px above its inner upper lip to 1 px below its inner lower lip (the lip
 * line where they meet, the photo's own open mouth where they part); the luminance that 10 % of
 * the columns are darker than.
 */
export function photoBetweenLipsDarkness(photo: RgbImage, geo: FaceGeometry): number {
  const m = geo.mouth;
  const values: number[] = [];
  for (let u = m.innerMid - m.innerHalfWidth * 0.8; u <= m.innerMid + m.innerHalfWidth * 0.8; u += 1) {
    let darkest = Infinity;
    for (let v = m.upperInner.at(u) - 1; v <= m.lowerInner.at(u) + 1; v += 0.5) {
      const p = toFrame(geo, u, v);
      darkest = Math.min(darkest, luminanceAt(photo, p.x, p.y));
    }
    values.push(darkest);
  }
  return percentile(values, 0.1);
}
