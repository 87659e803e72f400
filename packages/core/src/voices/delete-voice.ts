import type { Principal } from '../auth/api-key.js';
import type { BlobStore } from '../shared/blob-store.js';
import { VoiceNotDeletableError, VoiceNotFoundError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { silentLogger } from '../shared/logger.js';
import type { VoiceRepository } from './voice-repository.js';

/**
 * DELETE /v1/audio/voices/{voice}. Presets are refused (403); any other id takes exactly one scoped
 * repository call before the 404, whether it never existed, belongs to another key or is already
 * deleted, so neither the answer nor its timing tells them apart. The row goes first (the voice stops
 * working at once), then its reference audio; a crash in between leaves only an unreferenced blob.
 */
export class DeleteVoice {
  constructor(
    private readonly isPreset: (name: string) => boolean,
    private readonly voices: VoiceRepository,
    private readonly blobs: BlobStore,
    private readonly logger: Logger = silentLogger,
  ) {}

  async execute(principal: Principal, voiceId: string): Promise<{ voiceId: string }> {
    if (this.isPreset(voiceId)) throw new VoiceNotDeletableError(voiceId);
    const removed = await this.voices.delete(principal.apiKeyId, voiceId);
    if (!removed) throw new VoiceNotFoundError(voiceId);
    try {
      await this.blobs.delete(removed.audioKey);
    } catch (err) {
      this.logger.warn({ voice: voiceId, err: String(err) }, 'voice deleted but its reference audio could not be removed');
    }
    return { voiceId: removed.id };
  }
}
