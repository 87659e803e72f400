import type { SpeakerFeatures, VoiceProfile } from '@svc/core';
import { gainAt, type GainCurve } from './fir-equalizer.js';

/** How one base preset's speech is turned toward one reference speaker. */
export interface ConversionPlan {
  /** Output F0 / input F0. */
  pitchScale: number;
  /** Output formant frequencies / input formant frequencies (vocal-tract length change). */
  formantScale: number;
  /** Spectral-envelope correction applied after the shift. */
  equalizer: GainCurve;
}

/** Shifts beyond these damage intelligibility more than they improve likeness. */
export const PLAN_LIMITS = { pitch: [0.5, 2], formant: [0.8, 1.25], eqDb: 10 } as const;

/**
 * Pitch: median F0 ratio. Formants: vocal-tract scale ratio. Equalizer: the reference's long-term
 * envelope minus the base's envelope as it will sound after the formant shift (its frequency axis
 * stretched by the formant scale), smoothed across neighbouring bands, limited to +-10 dB and
 * normalised so it does not change the loudness of the base voice.
 */
export function planConversion(profile: VoiceProfile): ConversionPlan {
  const target = profile.speaker;
  const base = profile.base.speaker;
  const pitchScale = clamp(target.f0MedianHz / base.f0MedianHz, PLAN_LIMITS.pitch);
  const formantScale = clamp(target.formantScale / base.formantScale, PLAN_LIMITS.formant);
  return { pitchScale, formantScale, equalizer: envelopeCorrection(target, base, formantScale) };
}

function envelopeCorrection(target: SpeakerFeatures, base: SpeakerFeatures, formantScale: number): GainCurve {
  const bands = base.envelopeBandsHz;
  const targetCurve = { frequenciesHz: target.envelopeBandsHz, gainsDb: target.spectralEnvelopeDb };
  const baseCurve = { frequenciesHz: base.envelopeBandsHz, gainsDb: base.spectralEnvelopeDb };
  const raw = bands.map((hz) => gainAt(targetCurve, hz) - gainAt(baseCurve, hz / formantScale));
  const smoothed = raw.map((_, i) => {
    const lo = Math.max(0, i - 1);
    const hi = Math.min(raw.length - 1, i + 1);
    let sum = 0;
    for (let j = lo; j <= hi; j++) sum += raw[j]!;
    return sum / (hi - lo + 1);
  });
  const limited = smoothed.map((g) => Math.max(-PLAN_LIMITS.eqDb, Math.min(PLAN_LIMITS.eqDb, g)));
  // Loudness-neutral on the shifted base spectrum: sum of band powers unchanged.
  let before = 0;
  let after = 0;
  bands.forEach((hz, i) => {
    const power = 10 ** (gainAt(baseCurve, hz / formantScale) / 10);
    before += power;
    after += power * 10 ** (limited[i]! / 10);
  });
  const offset = 10 * Math.log10(before / after);
  return { frequenciesHz: [...bands], gainsDb: limited.map((g) => Math.round((g + offset) * 100) / 100) };
}

const clamp = (v: number, [lo, hi]: readonly [number, number]): number => (Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : 1);
