import type { PcmAudio } from '../shared/audio.js';
import type { SpeakerFeatures } from './voice-profile.js';

/**
 * Measures a speaker from a clip of their speech. The default adapter is signal processing (pitch,
 * formants, spectral envelope, rate); a neural speaker encoder can replace it behind this port.
 */
export interface VoiceAnalyzer {
  /** Identifies the analyzer in stored profiles (e.g. `dsp-1`). */
  readonly name: string;
  /**
   * @param transcript what the clip says, when known: gives a better speaking-rate estimate.
   * @throws ReferenceAudioTooShortError when the clip has too little voiced speech to measure.
   */
  analyze(audio: PcmAudio, transcript: string | null, signal?: AbortSignal): Promise<SpeakerFeatures>;
}
