import { faceGeometry } from './face-geometry.js';
import type { FacePose } from './face-pose.js';
import { FaceWarper } from './face-warper.js';
import type { Point } from './rgb-image.js';

/**
 * The 68 landmarks of a face framed at 640x640 (face-api's sample3, rounded): a plausible face for
 * warming up, not anybody's likeness (no pixels are kept).
 */
const FACE_640: ReadonlyArray<readonly [number, number]> = [
  [241, 255],
  [236, 284],
  [235, 311],
  [238, 335],
  [242, 364],
  [252, 388],
  [263, 405],
  [278, 424],
  [308, 440],
  [344, 438],
  [374, 429],
  [399, 419],
  [420, 400],
  [437, 376],
  [446, 351],
  [456, 324],
  [463, 296],
  [257, 227],
  [268, 220],
  [281, 221],
  [293, 226],
  [305, 233],
  [359, 243],
  [373, 241],
  [391, 242],
  [410, 249],
  [424, 262],
  [325, 272],
  [318, 292],
  [311, 309],
  [306, 326],
  [296, 332],
  [301, 338],
  [310, 342],
  [322, 341],
  [331, 341],
  [271, 254],
  [279, 252],
  [292, 255],
  [304, 265],
  [292, 267],
  [278, 263],
  [359, 276],
  [372, 271],
  [386, 274],
  [397, 282],
  [384, 286],
  [369, 282],
  [276, 361],
  [284, 358],
  [299, 358],
  [308, 361],
  [317, 361],
  [339, 371],
  [359, 380],
  [337, 389],
  [321, 393],
  [306, 392],
  [295, 387],
  [284, 379],
  [277, 362],
  [296, 366],
  [308, 369],
  [322, 372],
  [355, 379],
  [322, 379],
  [309, 378],
  [297, 375],
];

const POSES: FacePose[] = [
  { open: 0, spread: 0, round: 0, blink: 0, headX: 0, headY: 0, headRoll: 0 },
  { open: 0.6, spread: 0.2, round: 0, blink: 0, headX: 1.5, headY: -0.8, headRoll: 0.01 },
  { open: 0.3, spread: 0, round: 0.7, blink: 0.5, headX: -1, headY: 0.5, headRoll: -0.02 },
  { open: 0.1, spread: 0.8, round: 0, blink: 1, headX: 0.4, headY: 1, headRoll: 0.005 },
];

/**
 * Builds warpers and renders frames of a made-up face a few times, so the JIT has compiled the
 * warper's code before the next real photos. Without it, a new photo's warper was built by
 * uncompiled code, several times slower, on the way to the first frame (docs/video.md, Speed).
 * Costs a fraction of a second of CPU once, in the render thread.
 */
export function warmUpWarper(rounds = 4): WarmUpReport {
  const width = 640;
  const height = 640;
  const data = new Uint8Array(width * height * 3);
  // a skin-toned picture with texture (a flat one would leave the eyelid and teeth checks nothing to read)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const shade = 40 * Math.sin(x / 7) * Math.cos(y / 11) + ((x * 7919 + y * 104729) % 23);
      data[o] = clamp(190 + shade);
      data[o + 1] = clamp(150 + shade);
      data[o + 2] = clamp(130 + shade);
    }
  }
  const landmarks: Point[] = FACE_640.map(([x, y]) => ({ x, y }));
  const out = new Uint8Array(width * height * 3);
  const changedPixels: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // a slightly different face each round, as new photos are
    const moved = landmarks.map((p) => ({ x: p.x + round, y: p.y - round / 2 }));
    const warper = new FaceWarper({ data, width, height }, faceGeometry(moved));
    for (const pose of POSES) {
      warper.render(pose, out);
      if (round === rounds - 1) changedPixels.push(countChanged(data, out));
    }
  }
  return { changedPixels };
}

/** What the warm-up rendered: per pose (rest, then three that move the mouth, the eyelids and the head), the pixels it changed. */
export interface WarmUpReport {
  changedPixels: number[];
}

function countChanged(a: Uint8Array, b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i += 3) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++;
  return n;
}

function clamp(v: number): number {
  return Math.max(0, Math.min(255, Math.round(v)));
}
