import type { Principal } from '../auth/api-key.js';
import { VoiceNotFoundError } from '../shared/errors.js';
import type { ClonedVoice, VoiceCloner } from '../speech/cloned-voice.js';
import type { ReferenceAudioLoader } from './reference-audio.js';
import type { VoiceConverter } from './voice-converter.js';
import type { VoiceProfiler } from './voice-profiler.js';
import { speakingRateMultiplier, type VoiceProfile } from './voice-profile.js';
import type { VoiceRepository } from './voice-repository.js';

/**
 * Custom voices for speech synthesis. A registered voice uses the profile stored at registration
 * (no analysis per request); an inline `ref_audio` is fetched, decoded and analysed per request,
 * with a small cache keyed by the audio's content id so a client repeating the same reference pays
 * the analysis once.
 */
export class VoiceCloningService implements VoiceCloner {
  private readonly inlineProfiles = new Map<string, VoiceProfile>();

  constructor(
    private readonly voices: VoiceRepository,
    private readonly loader: ReferenceAudioLoader,
    private readonly profiler: VoiceProfiler,
    private readonly converter: VoiceConverter,
    private readonly isPresetConfigured: (preset: string) => boolean,
    private readonly inlineCacheSize = 32,
  ) {}

  async registered(principal: Principal, voiceId: string): Promise<ClonedVoice> {
    const voice = await this.voices.find(principal.apiKeyId, voiceId);
    if (!voice) throw new VoiceNotFoundError(voiceId);
    return this.cloned(await this.profiler.ensureBase(voice.profile, this.isPresetConfigured));
  }

  async inline(principal: Principal | null, refAudio: string, refText: string | null, signal?: AbortSignal): Promise<ClonedVoice> {
    const reference = await this.loader.load(refAudio, 'ref_audio', signal, { apiKeyId: principal?.apiKeyId });
    const key = `${reference.voiceId}\u0000${refText ?? ''}`;
    let profile = this.inlineProfiles.get(key);
    if (profile) {
      this.inlineProfiles.delete(key); // re-inserted below: most recently used last
    } else {
      profile = await this.profiler.profile(reference.pcm, refText, signal);
    }
    this.remember(key, profile);
    return this.cloned(await this.profiler.ensureBase(profile, this.isPresetConfigured));
  }

  private cloned(profile: VoiceProfile): ClonedVoice {
    return {
      basePreset: profile.base.preset,
      rate: speakingRateMultiplier(profile.speaker, profile.base.speaker),
      startConversion: (sampleRate) => this.converter.start(profile, sampleRate),
    };
  }

  private remember(key: string, profile: VoiceProfile): void {
    this.inlineProfiles.set(key, profile);
    while (this.inlineProfiles.size > this.inlineCacheSize) {
      this.inlineProfiles.delete(this.inlineProfiles.keys().next().value!);
    }
  }
}
