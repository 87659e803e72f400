import type { Principal } from '../auth/api-key.js';
import { VoiceNotFoundError } from '../shared/errors.js';
import type { VoiceRepository } from './voice-repository.js';
import type { VoiceRecord } from './voice.js';

/** GET /v1/audio/voices/{voice}: unknown, foreign and deleted voices are the same 404. */
export class GetVoice {
  constructor(private readonly voices: VoiceRepository) {}

  async execute(principal: Principal, voiceId: string): Promise<VoiceRecord> {
    const voice = await this.voices.find(principal.apiKeyId, voiceId);
    if (!voice) throw new VoiceNotFoundError(voiceId);
    return voice;
  }
}
