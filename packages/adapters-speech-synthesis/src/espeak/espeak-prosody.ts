import type { Prosody } from '@svc/core';

/** espeak-ng's own units for one request. */
export interface EspeakProsody {
  /** Words per minute. */
  rate: number;
  /** 0..100, 50 = the voice's normal pitch. */
  pitch: number;
  /** 0..100, 50 = normal intonation, 0 = monotone. */
  range: number;
}

/** espeak-ng's default speaking rate; Prosody.rate 1 maps here. */
const NEUTRAL_WPM = 175;
/** espeak-ng ignores rates outside this range (measured: 600 and 900 wpm sound like 450). */
const WPM_LIMITS = [80, 450] as const;
/**
 * Pitch is exponential in the 0..100 setting, steeper above 50 than below. Measured on en-us
 * (median F0): 0 → 71 Hz, 25 → 81, 50 → 101, 75 → 130, 100 → 168. So a factor f needs
 * 50 + ln(f) / k with k ≈ 0.0102 above and 0.0070 below the neutral 50; reachable factors are
 * about 0.70 .. 1.66, beyond that the setting saturates.
 */
const PITCH_SLOPE_UP = 0.0102;
const PITCH_SLOPE_DOWN = 0.007;

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
const finite = (v: number): number => (Number.isFinite(v) && v > 0 ? v : 1);

export function espeakProsody(prosody: Prosody): EspeakProsody {
  const rate = Math.round(clamp(NEUTRAL_WPM * finite(prosody.rate), WPM_LIMITS[0], WPM_LIMITS[1]));
  const logPitch = Math.log(finite(prosody.pitch));
  const pitch = Math.round(clamp(50 + logPitch / (logPitch >= 0 ? PITCH_SLOPE_UP : PITCH_SLOPE_DOWN), 0, 100));
  // Intonation range (F0 interquartile range) grows about linearly with the setting: 0 → flat.
  const pitchRange = Number.isFinite(prosody.pitchRange) ? Math.max(0, prosody.pitchRange) : 1;
  const range = Math.round(clamp(50 * pitchRange, 0, 100));
  return { rate, pitch, range };
}
