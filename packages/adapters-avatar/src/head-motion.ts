import { seededRandom } from '@svc/adapters-runtime';

export interface HeadOffset {
  x: number;
  y: number;
  roll: number;
}

/**
 * Small head motion: a slow sway (two incommensurate sines per axis, 0.1-0.45 Hz, random phases per
 * seed) plus a nod and a tilt that follow the speech envelope smoothed to its 1-2 Hz syllable-group
 * rhythm. Everything is a smooth function of time, so there is no frame-to-frame jitter; it eases in
 * over the first half second so the clip starts on the reference photo. Amplitudes scale with the
 * face: about 1.5 % of the eye distance of sway, 3 % of nod, under a degree of roll.
 */
export function headMotion(loud: readonly number[], fps: number, eyeDistance: number, seed: number): HeadOffset[] {
  const at = headMotionAt(eyeDistance, seed);
  return loud.map((_, k) => at(k / fps, speechEnvelope(loud, k, Math.round(fps * 0.25))));
}

/**
 * The speech envelope at frame k: the loudness smoothed with a triangle of +/- `radius` frames
 * (the 1-2 Hz rhythm of syllable groups). Frames outside the array count as absent.
 */
export function speechEnvelope(loud: readonly number[], k: number, radius: number): number {
  let sum = 0;
  let n = 0;
  for (let j = k - radius; j <= k + radius; j++) {
    if (j < 0 || j >= loud.length) continue;
    const w = 1 - Math.abs(j - k) / (radius + 1);
    sum += loud[j]! * w;
    n += w;
  }
  return n > 0 ? sum / n : 0;
}

/** The head's offset at time t (seconds from the start) for a speech envelope e (0..1): see headMotion(). */
export function headMotionAt(eyeDistance: number, seed: number): (t: number, e: number) => HeadOffset {
  const random = seededRandom(seed ^ 0x5bd1e995);
  const phase = (): number => random() * 2 * Math.PI;
  const p = [phase(), phase(), phase(), phase(), phase(), phase()];
  const sway = 0.015 * eyeDistance;
  const nod = 0.03 * eyeDistance;
  return (t, e) => {
    const ease = Math.min(1, t / 0.5);
    const x = sway * (Math.sin(2 * Math.PI * 0.13 * t + p[0]!) + 0.5 * Math.sin(2 * Math.PI * 0.31 * t + p[1]!));
    const y = sway * 0.6 * Math.sin(2 * Math.PI * 0.17 * t + p[2]!) + nod * e;
    const roll =
      0.006 * Math.sin(2 * Math.PI * 0.11 * t + p[3]!) + 0.004 * Math.sin(2 * Math.PI * 0.43 * t + p[4]!) + 0.006 * e * Math.sin(p[5]!);
    return { x: x * ease, y: y * ease, roll: roll * ease };
  };
}
