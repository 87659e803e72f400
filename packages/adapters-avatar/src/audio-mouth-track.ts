import type { MouthShape } from './face-pose.js';
import { quantile, type FrameFeatures } from './speech-features.js';

/** Below this RMS (about -50 dBFS) a frame is silence and the mouth is closed. */
export const SILENCE_RMS = 0.003;

/**
 * How loud each frame is for the mouth, 0..1: the amplitude relative to the clip's loud speech
 * (95th percentile), half linear (what the ear tracks as syllable strength) and half on a decibel
 * scale (so quiet consonants still part the lips), gated to 0 in silence.
 */
export function loudness(features: readonly FrameFeatures[]): number[] {
  const peak = loudnessPeak(features.map((f) => f.rms));
  return features.map((f) => loudnessOf(f.rms, peak));
}

/** The level of loud speech that loudness() is relative to: the 95th percentile of the non-silent frames' RMS. */
export function loudnessPeak(levels: readonly number[]): number {
  return Math.max(
    SILENCE_RMS * 4,
    quantile(
      levels.filter((r) => r > SILENCE_RMS),
      0.95,
    ),
  );
}

/** One frame's loudness (see loudness()) against the speech's peak level. */
export function loudnessOf(rms: number, peak: number): number {
  const gate = Math.max(SILENCE_RMS, peak * 0.05);
  if (rms <= gate) return 0;
  const linear = Math.min(1, rms / peak);
  const db = Math.min(1, Math.max(0, (20 * Math.log10(rms / gate)) / (20 * Math.log10(peak / gate))));
  return 0.55 * linear + 0.45 * db;
}

/**
 * Mouth shapes read from the audio alone: openness from loudness; fricatives (energy above 3.5 kHz)
 * nearly close and spread the lips; a low spectral centroid in voiced sound (o, u, w) rounds them,
 * a high one (e, i) spreads them. Lightly smoothed without delay (the whole clip is known).
 */
export function audioMouthTrack(features: readonly FrameFeatures[]): MouthShape[] {
  const loud = loudness(features);
  return smoothShapes(features.map((f, k) => mouthShapeOf(f, loud[k]!)));
}

/** The mouth shape of one frame from its features and its loudness (0..1). */
export function mouthShapeOf(f: FrameFeatures, l: number): MouthShape {
  const hiss = Math.min(1, Math.max(0, (f.hiss - 0.25) / 0.4));
  const voiced = l * (1 - hiss);
  const round = voiced * Math.min(1, Math.max(0, (1300 - f.centroid) / 700));
  const spread = Math.min(1, voiced * Math.max(0, (f.centroid - 1700) / 900) + 0.5 * hiss * Math.min(1, l * 3));
  return { open: Math.min(1, l * (1 - 0.6 * hiss) * 1.1), spread, round };
}

/** Zero-phase [1 2 1]/4 smoothing of a shape track (removes single-frame flicker, adds no lag). */
export function smoothShapes(track: readonly MouthShape[]): MouthShape[] {
  const at = (i: number): MouthShape => track[Math.max(0, Math.min(track.length - 1, i))]!;
  return track.map((s, i) => {
    const a = at(i - 1);
    const b = at(i + 1);
    return {
      open: (a.open + 2 * s.open + b.open) / 4,
      spread: (a.spread + 2 * s.spread + b.spread) / 4,
      round: (a.round + 2 * s.round + b.round) / 4,
    };
  });
}
