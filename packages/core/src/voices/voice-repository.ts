import type { VoiceRecord, VoiceSummary } from './voice.js';

export interface VoicePageRequest {
  limit: number;
  /** Continue after this voice (newest-first order): its creation time and id. */
  after?: { createdAt: number; id: string };
}

export interface VoicePage {
  voices: VoiceSummary[];
  hasMore: boolean;
}

/**
 * Voice rows, always scoped by API key: no method can reach another key's voice, so "not yours"
 * and "does not exist" are the same answer by construction.
 */
export interface VoiceRepository {
  /**
   * Stores the voice unless (apiKeyId, id) exists. Resolves to the stored row: the new one
   * (`created: true`) or the one that was already there, also when a concurrent registration won.
   */
  insertIfAbsent(record: VoiceRecord): Promise<{ record: VoiceRecord; created: boolean }>;
  find(apiKeyId: string, id: string): Promise<VoiceRecord | null>;
  /** How many voices the key stores (its cap, SVC_VOICES_MAX_PER_KEY, is checked against this). */
  count(apiKeyId: string): Promise<number>;
  /** Newest first; ties on creation time are ordered by id, descending. */
  list(apiKeyId: string, page: VoicePageRequest): Promise<VoicePage>;
  /** Removes the row; resolves to the removed record, or null when there was none. */
  delete(apiKeyId: string, id: string): Promise<VoiceRecord | null>;
  /**
   * Of these blob keys, the ones a voice row still names (the orphaned-blob sweep keeps those). A
   * repository without it leaves the voices' blobs out of that sweep.
   */
  referencedAudioKeys?(keys: readonly string[]): Promise<Set<string>>;
}
