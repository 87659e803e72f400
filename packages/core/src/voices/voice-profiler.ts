import type { PcmAudio } from '../shared/audio.js';
import type { BaseVoiceLibrary } from './base-voices.js';
import type { VoiceAnalyzer } from './voice-analyzer.js';
import type { VoiceConverter } from './voice-converter.js';
import { VOICE_PROFILE_VERSION, type VoiceProfile } from './voice-profile.js';

/** Reference clip -> stored profile: measure the speaker, then pick the base preset to convert from. */
export class VoiceProfiler {
  constructor(
    private readonly analyzer: VoiceAnalyzer,
    private readonly converter: VoiceConverter,
    private readonly baseVoices: BaseVoiceLibrary,
  ) {}

  async profile(audio: PcmAudio, transcript: string | null, signal?: AbortSignal): Promise<VoiceProfile> {
    const [speaker, candidates] = await Promise.all([this.analyzer.analyze(audio, transcript, signal), this.baseVoices.candidates()]);
    return { version: VOICE_PROFILE_VERSION, analyzer: this.analyzer.name, speaker, base: this.converter.chooseBase(speaker, candidates) };
  }

  /**
   * A stored profile whose base preset is no longer configured gets a new base from the measured
   * speaker (no audio analysis needed); otherwise it is returned as stored.
   */
  async ensureBase(profile: VoiceProfile, isConfigured: (preset: string) => boolean): Promise<VoiceProfile> {
    if (isConfigured(profile.base.preset)) return profile;
    const base = this.converter.chooseBase(profile.speaker, await this.baseVoices.candidates());
    return { ...profile, base };
  }
}
