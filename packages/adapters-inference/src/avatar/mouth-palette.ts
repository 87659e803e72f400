import type { FaceGeometry } from './face-geometry.js';
import type { RgbImage } from './rgb-image.js';

type Rgb = [number, number, number];

/** Colours of the painted mouth interior, derived from the reference's own lips and skin light. */
export interface MouthPalette {
  cavity: Rgb;
  teeth: Rgb;
  tongue: Rgb;
}

/**
 * Lip colour is averaged just above and below the line where the lips meet; the face's light level
 * (mean luminance around the mouth) dims the teeth so a dark photo does not get glowing teeth.
 */
export function mouthPalette(image: RgbImage, geo: FaceGeometry): MouthPalette {
  const m = geo.mouth;
  const lip: Rgb = [0, 0, 0];
  let n = 0;
  let light = 0;
  let ln = 0;
  for (let u = -m.innerHalfWidth * 0.7; u <= m.innerHalfWidth * 0.7; u += 1) {
    const upper = m.upperInner.at(u);
    const lower = m.lowerInner.at(u);
    for (const dv of [-0.25, -0.15, 0.15, 0.3]) {
      const v = (dv < 0 ? upper : lower) + dv * m.halfWidth;
      const px = pixel(image, m.centre.x + u * m.cos - v * m.sin, m.centre.y + u * m.sin + v * m.cos);
      lip[0] += px[0];
      lip[1] += px[1];
      lip[2] += px[2];
      n++;
    }
    for (const dv of [-0.9, 1.2]) {
      const v = (dv < 0 ? upper : lower) + dv * m.halfWidth;
      const px = pixel(image, m.centre.x + u * m.cos - v * m.sin, m.centre.y + u * m.sin + v * m.cos);
      light += 0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2];
      ln++;
    }
  }
  const l: Rgb = [lip[0] / n, lip[1] / n, lip[2] / n];
  const k = Math.max(0.55, Math.min(1.05, light / ln / 165));
  return {
    cavity: [l[0] * 0.22 + 8, l[1] * 0.12 + 4, l[2] * 0.12 + 5],
    teeth: [230 * k, 222 * k, 204 * k],
    tongue: [l[0] * 0.72 + 28 * k, l[1] * 0.4 + 10, l[2] * 0.42 + 12],
  };
}

function pixel(image: RgbImage, x: number, y: number): Rgb {
  const xi = Math.max(0, Math.min(image.width - 1, Math.round(x)));
  const yi = Math.max(0, Math.min(image.height - 1, Math.round(y)));
  const i = (yi * image.width + xi) * 3;
  return [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!];
}
