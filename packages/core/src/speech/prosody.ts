/**
 * How speech should sound, as multipliers around a neutral 1.0. Emotion/style/prosody tags and
 * the `speed` option resolve to one of these; each engine adapter maps it onto its own knobs.
 */
export interface Prosody {
  /** Speaking rate (2 = twice as fast). */
  rate: number;
  /** Mean pitch (1.2 = 20 % higher). */
  pitch: number;
  /** Pitch variation / intonation range (0.5 = flatter). */
  pitchRange: number;
  /** Loudness as a linear gain. */
  volume: number;
}

export const NEUTRAL_PROSODY: Readonly<Prosody> = Object.freeze({ rate: 1, pitch: 1, pitchRange: 1, volume: 1 });

export function combineProsody(a: Prosody, b: Partial<Prosody>): Prosody {
  return {
    rate: a.rate * (b.rate ?? 1),
    pitch: a.pitch * (b.pitch ?? 1),
    pitchRange: a.pitchRange * (b.pitchRange ?? 1),
    volume: a.volume * (b.volume ?? 1),
  };
}
