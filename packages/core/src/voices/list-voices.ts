import type { Principal } from '../auth/api-key.js';
import { InvalidParameterError } from '../shared/errors.js';
import type { VoicePage, VoiceRepository } from './voice-repository.js';
import { VOICE_LIMITS } from './voice.js';

export interface ListVoicesQuery {
  limit?: number;
  /** A voice id from a previous page: the listing continues after it. */
  after?: string;
}

/** GET /v1/audio/voices: the caller's voices, newest first, in pages. */
export class ListVoices {
  constructor(private readonly voices: VoiceRepository) {}

  async execute(principal: Principal, query: ListVoicesQuery = {}): Promise<VoicePage> {
    const limit = query.limit ?? VOICE_LIMITS.listDefaultLimit;
    if (!Number.isInteger(limit) || limit < 1 || limit > VOICE_LIMITS.listMaxLimit) {
      throw new InvalidParameterError(`'limit' must be an integer from 1 to ${VOICE_LIMITS.listMaxLimit}.`, 'limit');
    }
    if (query.after === undefined) return this.voices.list(principal.apiKeyId, { limit });
    // The cursor is looked up under the caller's key, so another key's id is just an unknown cursor.
    const cursor = await this.voices.find(principal.apiKeyId, query.after);
    if (!cursor) {
      throw new InvalidParameterError(`'after' must be the id of one of your voices; '${query.after}' is not.`, 'after');
    }
    return this.voices.list(principal.apiKeyId, { limit, after: { createdAt: cursor.createdAt, id: cursor.id } });
  }
}
