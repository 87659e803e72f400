import type { Prosody } from '@svc/core';
import type { FliteVoiceSpec } from './flite-voices.js';

/** How one request is rendered by flite: its command-line features and a playback-rate factor. */
export interface FliteSynthesisPlan {
  /** Extra flite arguments (`--setf feature=value` pairs). */
  args: string[];
  /**
   * The output is to be played this many times faster than flite's own rate (1 = as is). Used to
   * shift pitch of voices whose F0 cannot be set: flite renders p times longer, the samples are
   * then read as if recorded at p × the rate, which raises pitch and formants by p and restores
   * the duration.
   */
  playbackRate: number;
}

const RATE_LIMITS = [0.25, 4] as const;
const PITCH_LIMITS = [0.5, 2] as const;
const RANGE_LIMITS = [0, 4] as const;

const clamp = (v: number, [lo, hi]: readonly [number, number]): number => (Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : 1);
const num = (v: number): string => String(Math.round(v * 10000) / 10000);

/**
 * Maps Prosody onto flite features:
 * - rate → `duration_stretch = 1 / rate` (flite lengthens every segment; pitch is unaffected);
 * - pitch → `int_f0_target_mean = voice mean × pitch`;
 * - pitch range → `int_f0_target_stddev = voice stddev × pitchRange × pitch` (the variation
 *   follows the mean so a higher voice keeps the same intonation in semitones);
 * - volume is not a flite feature: it is a gain the adapter applies to the samples.
 * Neutral values add no feature, so the voice renders exactly as shipped.
 */
export function fliteSynthesisPlan(voice: FliteVoiceSpec, prosody: Prosody): FliteSynthesisPlan {
  const rate = clamp(prosody.rate, RATE_LIMITS);
  const pitch = clamp(prosody.pitch, PITCH_LIMITS);
  const range = clamp(prosody.pitchRange, RANGE_LIMITS);
  const args: string[] = [];
  let stretch = 1 / rate;
  let playbackRate = 1;

  if (voice.pitchByResampling) {
    if (pitch !== 1) {
      stretch *= pitch;
      playbackRate = pitch;
    }
  } else {
    if (pitch !== 1) args.push('--setf', `int_f0_target_mean=${num(voice.f0Mean * pitch)}`);
    if (pitch !== 1 || range !== 1) args.push('--setf', `int_f0_target_stddev=${num(voice.f0StdDev * range * pitch)}`);
  }
  if (stretch !== 1) args.push('--setf', `duration_stretch=${num(stretch)}`);
  return { args, playbackRate };
}
