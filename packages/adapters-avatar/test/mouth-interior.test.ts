// @test-tier slow: renders avatar frames
import { expect } from 'chai';
import { loadFaceApi } from '../src/face-api-runtime.js';
import { detectFaces } from '../src/face-detection.js';
import { faceGeometry } from '../src/face-geometry.js';
import { REST_POSE } from '../src/face-pose.js';
import { FaceWarper } from '../src/face-warper.js';
import { prepareFace } from '../src/prepare-face.js';
import type { Point, RgbImage } from '../src/rgb-image.js';
import { samplePhoto } from './avatar-measures.js';

/** Luminance and redness of the rows inside the lip contour, top to bottom, and the skin's luminance. */
interface ColumnProfile {
  luminance: number[];
  redness: number[];
  /** Mean luminance of the skin between nose and upper lip: what "dark" and "bright" are relative to. */
  skin: number;
}

/**
 * The mouth's centre column in a frame, inside the lip contour that face-api finds ON THAT FRAME
 * (landmarks re-detected, nothing taken from the renderer): from the upper inner lip (62) to the
 * lower (66), without the 10 % next to each lip, each row the mean over the middle half of the
 * inner lip width (60-64).
 */
function columnProfile(frame: RgbImage, lm: readonly Point[]): ColumnProfile {
  const left = lm[60]!;
  const right = lm[64]!;
  const len = Math.hypot(right.x - left.x, right.y - left.y);
  const ax = { x: (right.x - left.x) / len, y: (right.y - left.y) / len };
  const down = { x: -ax.y, y: ax.x };
  const top = lm[62]!;
  const bottom = lm[66]!;
  const gap = (bottom.x - top.x) * down.x + (bottom.y - top.y) * down.y;
  const half = len / 2;
  const px = (x: number, y: number): [number, number, number] => {
    const i =
      (Math.min(frame.height - 1, Math.max(0, Math.round(y))) * frame.width + Math.min(frame.width - 1, Math.max(0, Math.round(x)))) * 3;
    return [frame.data[i]!, frame.data[i + 1]!, frame.data[i + 2]!];
  };
  const luminance: number[] = [];
  const redness: number[] = [];
  for (let v = Math.ceil(0.1 * gap); v <= Math.floor(0.9 * gap); v++) {
    let l = 0;
    let red = 0;
    let n = 0;
    for (let u = -0.25 * half; u <= 0.25 * half; u++) {
      const [r, g, b] = px(top.x + u * ax.x + v * down.x, top.y + u * ax.y + v * down.y);
      l += 0.299 * r + 0.587 * g + 0.114 * b;
      red += r - (g + b) / 2;
      n++;
    }
    luminance.push(l / n);
    redness.push(red / n);
  }
  const philtrum = { x: (lm[33]!.x + lm[51]!.x) / 2, y: (lm[33]!.y + lm[51]!.y) / 2 };
  let skin = 0;
  let n = 0;
  for (let dy = -2; dy <= 2; dy++) {
    for (let dx = -4; dx <= 4; dx++) {
      const [r, g, b] = px(philtrum.x + dx, philtrum.y + dy);
      skin += 0.299 * r + 0.587 * g + 0.114 * b;
      n++;
    }
  }
  return { luminance, redness, skin: skin / n };
}

/** What the mouth shows inside its contour: the brightest row above the darkest (teeth), dark rows (cavity), red rows below them (tongue). */
function interior(p: ColumnProfile) {
  if (p.luminance.length === 0) return { rows: 0, teeth: 0, darkest: 1, cavityRows: 0, tongueRows: 0 };
  const darkest = p.luminance.indexOf(Math.min(...p.luminance));
  const aboveDark = p.luminance.slice(0, darkest);
  const cavityRows = p.luminance.filter((l) => l < 0.3 * p.skin).length;
  let tongueRows = 0;
  for (let k = darkest + 1; k < p.luminance.length; k++) {
    if (p.luminance[k]! > 1.6 * p.luminance[darkest]! && p.redness[k]! > 15) tongueRows++;
  }
  return {
    rows: p.luminance.length,
    teeth: aboveDark.length > 0 ? Math.max(...aboveDark) / p.skin : 0,
    darkest: p.luminance[darkest]! / p.skin,
    cavityRows,
    tongueRows,
  };
}

describe('FaceWarper: the painted mouth interior (real face-api landmarks on the sample photos)', function () {
  this.timeout(120_000);

  for (const sample of [2, 5, 6]) {
    it(`sample${sample}: an open mouth shows a bright upper-teeth band over a dark cavity and a tongue; the closed mouth shows none of them`, async () => {
      const face = await prepareFace(await loadFaceApi(), samplePhoto(sample), {
        width: 640,
        height: 640,
        detectMaxSide: 1024,
        minFaceScore: 0.4,
      });
      if (!face.ok) throw new Error(face.message);
      const geo = faceGeometry(face.landmarks);
      const warper = new FaceWarper(face.framed, geo);
      const render = (open: number): RgbImage => {
        const rgb = new Uint8Array(640 * 640 * 3);
        warper.render({ ...REST_POSE, open }, rgb);
        return { data: rgb, width: 640, height: 640 };
      };
      const runtime = await loadFaceApi();
      const measure = async (open: number) => {
        const frame = render(open);
        const faces = await detectFaces(runtime, frame);
        return interior(columnProfile(frame, faces[0]!.landmarks));
      };
      const open = await measure(1);
      const half = await measure(0.5);
      const closed = await measure(0);
      const figures = JSON.stringify({ open, half, closed }, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v));
      // teeth: a band at least as bright as 80 % of the skin, above the cavity
      expect(open.teeth, figures).to.be.above(0.8);
      // cavity: several rows darker than 30 % of the skin
      expect(open.darkest, figures).to.be.below(0.3);
      expect(open.cavityRows, figures).to.be.at.least(4);
      // tongue: rows below the cavity, lighter than it and red
      expect(open.tongueRows, figures).to.be.at.least(4);
      // half open: the teeth and the cavity already show
      expect(half.teeth, figures).to.be.above(0.75);
      expect(half.cavityRows, figures).to.be.at.least(1);
      // closed: the same measure finds no teeth band and no cavity (it can fail)
      expect(closed.cavityRows, figures).to.equal(0);
      expect(closed.teeth, figures).to.be.below(0.8);
    });
  }
});
