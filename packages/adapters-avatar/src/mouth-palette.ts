import type { FaceGeometry } from './face-geometry.js';
import type { RgbImage } from './rgb-image.js';

type Rgb = [number, number, number];

/** Colours of the painted mouth interior, derived from the reference's own lips and skin light. */
export interface MouthPalette {
  /** The lips' inner surfaces where they curve into the mouth: the lips' colour, shaded. */
  lip: Rgb;
  cavity: Rgb;
  teeth: Rgb;
  tongue: Rgb;
}

/**
 * How coloured the teeth are against the skin around them (chromaticity, 0 = grey, 1 = as coloured
 * as the skin): teeth are nearly white, so they show mostly the light's colour, which the skin shows
 * too, on top of its own.
 */
const TEETH_CAST = 0.55;
/**
 * The lips' inner surfaces where they meet the opening are as dark as the photo's own line between
 * the lips (the same surfaces, seen edge on), within these shares of the lips' luminance (a photo
 * with a dark gap between its lips would otherwise give black lips).
 */
const INNER_LIP_SHADE = { min: 0.55, max: 0.9 };
/** Teeth inside the mouth (under the upper lip's shadow) against the skin around it. */
const TEETH_OVER_SKIN = 1.25;
/** The cavity's base colour against the face's own darkest shadows (its shading goes below it). */
const CAVITY_OVER_SHADOW = 1.2;
/** Share of the face's pixels darker than what counts as its darkest shadows (pupils, nostrils). */
const SHADOW_SHARE = 0.01;

/**
 * Lip colour is averaged just above and below the line where the lips meet, skin colour above the
 * upper lip and on the chin. The teeth take the photo's light from the skin: its colour cast (a
 * share of the skin's chromaticity: an orange-lit photo gets ivory-orange teeth, not grey-blue
 * ones) and its level (a little brighter than the skin, so a dark photo does not get glowing
 * teeth); the cavity and the tongue take the lips' colour. The cavity is no darker than
 * the face's own darkest shadows: a soft, low-contrast photo gets a soft dark mouth, not a black
 * hole deeper than anything else in the picture.
 */
export function mouthPalette(image: RgbImage, geo: FaceGeometry): MouthPalette {
  const m = geo.mouth;
  const lip: Rgb = [0, 0, 0];
  let n = 0;
  let line = 0;
  let lineN = 0;
  const skin: Rgb = [0, 0, 0];
  let sn = 0;
  for (let u = -m.innerHalfWidth * 0.7; u <= m.innerHalfWidth * 0.7; u += 1) {
    const upper = m.upperInner.at(u);
    const lower = m.lowerInner.at(u);
    for (const dv of [-0.25, -0.15, 0.15, 0.3]) {
      const v = (dv < 0 ? upper : lower) + dv * m.halfWidth;
      add(lip, mouthPixel(image, geo, u, v));
      n++;
    }
    let darkest = Infinity;
    for (let dv = -1; dv <= 1; dv += 0.5) darkest = Math.min(darkest, luminance(mouthPixel(image, geo, u, (upper + lower) / 2 + dv)));
    line += darkest;
    lineN++;
    for (const dv of [-0.9, 1.2]) {
      const v = (dv < 0 ? upper : lower) + dv * m.halfWidth;
      add(skin, mouthPixel(image, geo, u, v));
      sn++;
    }
  }
  const l: Rgb = [lip[0] / n, lip[1] / n, lip[2] / n];
  const s: Rgb = [skin[0] / sn, skin[1] / sn, skin[2] / sn];
  const k = Math.max(0.55, Math.min(1.05, luminance(s) / 165));
  const shade = Math.max(INNER_LIP_SHADE.min, Math.min(INNER_LIP_SHADE.max, line / lineN / Math.max(1, luminance(l))));
  return {
    lip: [l[0] * shade, l[1] * shade, l[2] * shade],
    cavity: cavityColour(l, faceShadow(image, geo)),
    teeth: teethColour(s),
    tongue: [l[0] * 0.72 + 28 * k, l[1] * 0.4 + 10, l[2] * 0.42 + 12],
  };
}

/**
 * A dark red-brown from the lips; in a face whose darkest shadows are lighter than it, those
 * shadows' own colour (brightened by CAVITY_OVER_SHADOW) with a quarter of the red: scaling the dark
 * red up instead would paint a bright red bowl.
 */
function cavityColour(lip: Rgb, shadow: { level: number; colour: Rgb }): Rgb {
  const dark: Rgb = [lip[0] * 0.22 + 8, lip[1] * 0.12 + 4, lip[2] * 0.12 + 5];
  const target = CAVITY_OVER_SHADOW * shadow.level;
  if (luminance(dark) >= target) return dark;
  const red = target / luminance(dark);
  const grey = target / Math.max(1, luminance(shadow.colour));
  return [0, 1, 2].map((i) => 0.75 * shadow.colour[i]! * grey + 0.25 * dark[i]! * red) as Rgb;
}

function teethColour(skin: Rgb): Rgb {
  const sum = Math.max(1, skin[0] + skin[1] + skin[2]);
  const shares = skin.map((c) => 1 / 3 + TEETH_CAST * (c / sum - 1 / 3)) as Rgb;
  const scale = Math.min(245 / Math.max(...shares), (TEETH_OVER_SKIN * luminance(skin)) / luminance(shares));
  return [shares[0] * scale, shares[1] * scale, shares[2] * scale];
}

/**
 * The face's darkest shadows: the luminance below which SHADOW_SHARE of the pixels in the box of
 * its landmarks (brows to chin) lie, and those pixels' mean colour.
 */
function faceShadow(image: RgbImage, geo: FaceGeometry): { level: number; colour: Rgb } {
  const pts = geo.landmarks.slice(17);
  const x0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p.x))));
  const x1 = Math.min(image.width, Math.ceil(Math.max(...pts.map((p) => p.x))));
  const y0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p.y))));
  const y1 = Math.min(image.height, Math.ceil(Math.max(...pts.map((p) => p.y))));
  const levelOf = (i: number): number => Math.round(0.299 * image.data[i]! + 0.587 * image.data[i + 1]! + 0.114 * image.data[i + 2]!);
  const histogram = new Uint32Array(256);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) histogram[levelOf((y * image.width + x) * 3)]!++;
  }
  const wanted = Math.max(1, SHADOW_SHARE * (x1 - x0) * (y1 - y0));
  let level = 0;
  for (let below = 0; level < 255 && below + histogram[level]! < wanted; level++) below += histogram[level]!;
  const sum: Rgb = [0, 0, 0];
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * image.width + x) * 3;
      if (levelOf(i) > level) continue;
      add(sum, [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!]);
      n++;
    }
  }
  return { level, colour: n > 0 ? [sum[0] / n, sum[1] / n, sum[2] / n] : [0, 0, 0] };
}

export function luminance(c: Rgb): number {
  return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
}

function add(sum: Rgb, c: Rgb): void {
  sum[0] += c[0];
  sum[1] += c[1];
  sum[2] += c[2];
}

/** The photo's pixel (nearest, clamped to its edges) at a point of the lips' frame: u along the lips, v down. */
export function mouthPixel(image: RgbImage, geo: FaceGeometry, u: number, v: number): Rgb {
  const m = geo.mouth;
  const x = Math.max(0, Math.min(image.width - 1, Math.round(m.centre.x + u * m.cos - v * m.sin)));
  const y = Math.max(0, Math.min(image.height - 1, Math.round(m.centre.y + u * m.sin + v * m.cos)));
  const i = (y * image.width + x) * 3;
  return [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!];
}
