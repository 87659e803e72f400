import { CountsByKey } from '../shared/counts-by-key.js';
import { VoiceLimitError } from './errors.js';
import type { VoiceRepository } from './voice-repository.js';

/**
 * How many voices one API key may store (SVC_VOICES_MAX_PER_KEY; 0: no limit). The stored count is
 * the repository's, so every process on one database sees the same; the registrations this process
 * is still working on count too, so a burst sent at once stops at the cap before any of them is
 * stored. Registrations in flight in another process are not seen by `admit`: `exceeded`, asked once
 * a new row is stored, catches them (the caller takes its row back), so the cap holds across
 * processes too.
 */
export class VoiceCap {
  private readonly registering = new CountsByKey();

  constructor(
    private readonly voices: VoiceRepository,
    readonly max: number,
  ) {}

  /**
   * Refuses a key at its cap with VoiceLimitError; else counts one registration in progress until the
   * returned function is called.
   */
  async admit(apiKeyId: string): Promise<() => void> {
    if (this.max <= 0) return () => undefined;
    const stored = await this.voices.count(apiKeyId);
    // Read after the query, with no await before the count goes up: requests sent together are
    // admitted one by one, so a burst stops exactly at the cap.
    if (stored + this.registering.of(apiKeyId) >= this.max) throw new VoiceLimitError(this.max);
    this.registering.add(apiKeyId);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.registering.remove(apiKeyId);
    };
  }

  /** Whether the key stores more voices than its cap: asked after a new row was stored. */
  async exceeded(apiKeyId: string): Promise<boolean> {
    return this.max > 0 && (await this.voices.count(apiKeyId)) > this.max;
  }
}
