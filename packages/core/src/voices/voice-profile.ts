/**
 * What the service knows about a speaker, measured once from the reference audio (or from a
 * preset's calibration speech) and stored with the voice, so speaking with a registered voice
 * needs no analysis per request. Plain JSON so any repository can store it.
 */
export interface SpeakerFeatures {
  /** Median fundamental frequency of voiced speech, Hz. */
  f0MedianHz: number;
  /** 10th / 90th percentile F0, Hz: the speaker's usual intonation range. */
  f0LowHz: number;
  f0HighHz: number;
  /** Median formant frequencies F1, F2, F3 over voiced frames, Hz. */
  formantsHz: number[];
  /**
   * Vocal-tract scale: formants relative to a neutral adult tube (500/1500/2500 Hz). About 1.0 for
   * an adult male, 1.15-1.2 for an adult female; shorter tracts have higher formants.
   */
  formantScale: number;
  /** Long-term spectral envelope: mean log energy (dB, mean removed) on `envelopeBandsHz`. */
  spectralEnvelopeDb: number[];
  /** Centre frequencies of the envelope bands, Hz (self-describing, so stored profiles survive a band change). */
  envelopeBandsHz: number[];
  /** Mean and standard deviation of MFCC 1..N over speech frames (timbre statistics). */
  mfccMean: number[];
  mfccStd: number[];
  /** Syllables per second of speech time, from energy-envelope syllable nuclei. */
  syllableRateFromEnergy: number;
  /** Syllables per second of speech time, counted from the transcript; null without one. */
  syllableRateFromText: number | null;
  /** Seconds of voiced speech the measures rest on. */
  voicedSeconds: number;
}

/** A measured speaker plus the preset chosen to start from and that preset's own measures. */
export interface VoiceProfile {
  /** Bumped when the meaning of a field changes. Re-deriving older profiles from the stored audio is not built yet: a future bump needs a migration that re-analyses each voice. */
  version: number;
  /** Which analyzer produced it (e.g. `dsp-1`), so a neural engine can tell its own profiles apart. */
  analyzer: string;
  speaker: SpeakerFeatures;
  base: BaseVoiceCandidate;
}

/** A preset voice that cloned speech may be rendered with, as measured from calibration speech. */
export interface BaseVoiceCandidate {
  preset: string;
  speaker: SpeakerFeatures;
}

export const VOICE_PROFILE_VERSION = 1;

/** Syllable rates of two speakers measured the same way (transcript when both have one). */
export function comparableSyllableRates(target: SpeakerFeatures, base: SpeakerFeatures): [number, number] {
  if (target.syllableRateFromText !== null && base.syllableRateFromText !== null) {
    return [target.syllableRateFromText, base.syllableRateFromText];
  }
  return [target.syllableRateFromEnergy, base.syllableRateFromEnergy];
}

/**
 * Speaking-rate multiplier that moves the base preset toward the reference speaker. Clamped: rate
 * estimates from a short clip are rough, and extreme rates hurt intelligibility more than they help.
 */
export function speakingRateMultiplier(target: SpeakerFeatures, base: SpeakerFeatures, limits = { min: 0.75, max: 1.35 }): number {
  const [t, b] = comparableSyllableRates(target, base);
  if (!(t > 0) || !(b > 0)) return 1;
  return Math.min(limits.max, Math.max(limits.min, t / b));
}
