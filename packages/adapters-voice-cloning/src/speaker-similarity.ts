import type { SpeakerFeatures } from '@svc/core';

/** How far apart two speakers are, overall and per cue (smaller = more alike). */
export interface SpeakerDistance {
  /** Weighted sum of the three cues below, each divided by its scale. */
  total: number;
  /** Euclidean distance of MFCC means plus half that of MFCC standard deviations (timbre). */
  timbre: number;
  /** Median-F0 difference, semitones. */
  pitchSemitones: number;
  /** Vocal-tract scale difference, percent (100 x |ln ratio|). */
  formantPercent: number;
}

/**
 * Scales that make each cue count about equally: a man and a woman typically differ by ~8-12
 * semitones, ~12-18 % in vocal-tract scale and ~15-25 timbre units, so each scale is a "clearly
 * different" step.
 */
export const DISTANCE_SCALES = { timbre: 10, pitchSemitones: 4, formantPercent: 6 } as const;

/**
 * Speaker-similarity measure used by the tests and the benchmark: classic, interpretable cues
 * rather than a learned embedding (none can be had offline here).
 */
export function speakerDistance(a: SpeakerFeatures, b: SpeakerFeatures): SpeakerDistance {
  const timbre = euclidean(a.mfccMean, b.mfccMean) + 0.5 * euclidean(a.mfccStd, b.mfccStd);
  const pitchSemitones = Math.abs(12 * Math.log2(a.f0MedianHz / b.f0MedianHz));
  const formantPercent = Math.abs(100 * Math.log(a.formantScale / b.formantScale));
  const total =
    timbre / DISTANCE_SCALES.timbre + pitchSemitones / DISTANCE_SCALES.pitchSemitones + formantPercent / DISTANCE_SCALES.formantPercent;
  return { total, timbre, pitchSemitones, formantPercent };
}

function euclidean(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) sum += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(sum);
}
