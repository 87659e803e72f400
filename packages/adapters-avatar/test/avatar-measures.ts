// Measures of rendered avatar frames for the quality tests (not a test file itself).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PcmAudio, VideoFrame } from '@svc/core';
import { detectFaces, landmarksInBox } from '../src/face-detection.js';
import { loadFaceApi } from '../src/face-api-runtime.js';
import type { Point, RgbImage } from '../src/rgb-image.js';
import { readWav } from '@svc/adapters-runtime';

const require = createRequire(import.meta.url);
const FACE_API_DIR = dirname(require.resolve('@vladmandic/face-api/package.json'));
export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';

/** One of face-api's demo photos (sample1..6.jpg: group photos, faces 150-300 px in 1920 px wide pictures). */
export function samplePhoto(n: number): Uint8Array {
  return readFileSync(join(FACE_API_DIR, 'demo', `sample${n}.jpg`));
}

/** A LibriVox audiobook sentence (real human speech, 16 kHz) from Debian's pocketsphinx-testdata. */
export function librivoxClip(id: '0870' | '0880' | '0890' | '0920' | '0930'): PcmAudio {
  const wav = readWav(readFileSync(join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`)));
  return { samples: wav.samples, sampleRate: wav.sampleRate };
}

export function concatAudio(sampleRate: number, ...parts: (Int16Array | number)[]): PcmAudio {
  const arrays = parts.map((p) => (typeof p === 'number' ? new Int16Array(Math.round(p * sampleRate)) : p));
  const out = new Int16Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return { samples: out, sampleRate };
}

export async function collectFrames(frames: AsyncIterable<VideoFrame>): Promise<RgbImage[]> {
  const out: RgbImage[] = [];
  for await (const f of frames) out.push({ data: f.rgb, width: f.width, height: f.height });
  return out;
}

const mean = (pts: Point[], from: number, to: number): Point => {
  let x = 0;
  let y = 0;
  for (let i = from; i < to; i++) {
    x += pts[i]!.x;
    y += pts[i]!.y;
  }
  return { x: x / (to - from), y: y / (to - from) };
};
const dist = (a: Point, b: Point): number => Math.hypot(a.x - b.x, a.y - b.y);

/**
 * Landmarks re-detected on every output frame: the face is found (SSD) on the first frame, then the
 * landmark net runs on each frame in that box, widened. Independent of the renderer's own geometry.
 */
export async function frameLandmarks(frames: readonly RgbImage[]): Promise<Point[][]> {
  const runtime = await loadFaceApi();
  // the animated face is the one the renderer centred (group photos have others at the edges)
  const first = frames[0]!;
  const centre = (f: { box: { x: number; y: number; width: number; height: number } }): number =>
    Math.hypot(f.box.x + f.box.width / 2 - first.width / 2, f.box.y + f.box.height / 2 - first.height / 2);
  const face = (await detectFaces(runtime, first)).sort((p, q) => centre(p) - centre(q))[0];
  if (!face) throw new Error('no face on the first output frame');
  const out: Point[][] = [];
  for (const frame of frames) out.push(await landmarksInBox(runtime, frame, face.box));
  return out;
}

/** Inner-lip opening (mean of the three vertical inner-lip distances) over the distance between the eye centres. */
export function mouthAperture(landmarks: readonly Point[]): number {
  const lm = landmarks as Point[];
  const eyes = dist(mean(lm, 36, 42), mean(lm, 42, 48));
  const opening = (dist(lm[61]!, lm[67]!) + dist(lm[62]!, lm[66]!) + dist(lm[63]!, lm[65]!)) / 3;
  return opening / eyes;
}

/** RMS amplitude of the audio during each frame's 1/fps interval. */
export function amplitudeEnvelope(audio: PcmAudio, fps: number, frames: number): number[] {
  const hop = audio.sampleRate / fps;
  return Array.from({ length: frames }, (_, k) => {
    const a = Math.round(k * hop);
    const b = Math.min(audio.samples.length, Math.round((k + 1) * hop));
    let s = 0;
    for (let i = a; i < b; i++) s += audio.samples[i]! * audio.samples[i]!;
    return b > a ? Math.sqrt(s / (b - a)) : 0;
  });
}

/** Pearson correlation of mouth[k] with audio[k - lag] over the frames where both exist. */
export function correlationAtLag(mouth: readonly number[], audio: readonly number[], lag: number): number {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let k = 0; k < mouth.length; k++) {
    const j = k - lag;
    if (j < 0 || j >= audio.length) continue;
    xs.push(mouth[k]!);
    ys.push(audio[j]!);
  }
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
}

/** The best correlation over lags of +/- maxLagFrames and the lag (frames; > 0 = mouth after sound) where it is. */
export function peakCorrelation(mouth: readonly number[], audio: readonly number[], maxLagFrames: number): { r: number; lag: number } {
  let best = { r: -Infinity, lag: 0 };
  for (let lag = -maxLagFrames; lag <= maxLagFrames; lag++) {
    const r = correlationAtLag(mouth, audio, lag);
    if (r > best.r) best = { r, lag };
  }
  return best;
}

/** The envelope moved by `frames` (wrapping round), for the "audio shifted by more than 1 s" control. */
export function rotate(values: readonly number[], frames: number): number[] {
  const n = values.length;
  return values.map((_, k) => values[(((k - frames) % n) + n) % n]!);
}

/** Box of the mouth and jaw (nose base to below the chin, jaw side to jaw side) with a margin. */
export function mouthJawBox(lm: readonly Point[], margin: number): { x0: number; y0: number; x1: number; y1: number } {
  const pts = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 31, 33, 35].map((i) => lm[i]!);
  return {
    x0: Math.min(...pts.map((p) => p.x)) - margin,
    y0: Math.min(...pts.map((p) => p.y)) - margin,
    x1: Math.max(...pts.map((p) => p.x)) + margin,
    y1: Math.max(...pts.map((p) => p.y)) + margin * 2,
  };
}

/** PSNR (dB) of b against a over the pixels outside `exclude`. */
export function psnrOutside(a: RgbImage, b: RgbImage, exclude: { x0: number; y0: number; x1: number; y1: number }): number {
  let se = 0;
  let n = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (x >= exclude.x0 && x < exclude.x1 && y >= exclude.y0 && y < exclude.y1) continue;
      const i = (y * a.width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const d = a.data[i + c]! - b.data[i + c]!;
        se += d * d;
      }
      n += 3;
    }
  }
  const mse = se / n;
  return mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse);
}

/** Mean luminance of a box (an eye region): a shut lid replaces dark iris and lashes with lighter skin. */
export function meanLuminance(img: RgbImage, box: { x0: number; y0: number; x1: number; y1: number }): number {
  let s = 0;
  let n = 0;
  for (let y = Math.max(0, Math.round(box.y0)); y < Math.min(img.height, Math.round(box.y1)); y++) {
    for (let x = Math.max(0, Math.round(box.x0)); x < Math.min(img.width, Math.round(box.x1)); x++) {
      const i = (y * img.width + x) * 3;
      s += 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
      n++;
    }
  }
  return s / n;
}

/** The bounding box of the eye landmarks (36-47 both eyes, or one eye's six), widened by `pad` of its size. */
export function eyeBox(lm: readonly Point[], from: number, to: number, pad: number): { x0: number; y0: number; x1: number; y1: number } {
  const pts = lm.slice(from, to);
  const x0 = Math.min(...pts.map((p) => p.x));
  const x1 = Math.max(...pts.map((p) => p.x));
  const y0 = Math.min(...pts.map((p) => p.y));
  const y1 = Math.max(...pts.map((p) => p.y));
  const w = x1 - x0;
  const h = Math.max(y1 - y0, w * 0.3);
  return { x0: x0 - w * pad, x1: x1 + w * pad, y0: y0 - h * pad, y1: y1 + h * pad };
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}
