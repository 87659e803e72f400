/**
 * Counts open sessions for the concurrency caps and remembers which ephemeral keys have a live
 * session (a second connection with the same key is refused with 4009).
 */
export class SessionRegistry {
  private total = 0;
  private readonly perKey = new Map<string, number>();
  private readonly liveSecrets = new Set<string>();

  constructor(
    private readonly maxSessions: number,
    private readonly maxPerKey: number,
  ) {}

  get size(): number {
    return this.total;
  }

  hasLiveSecret(secretSessionId: string): boolean {
    return this.liveSecrets.has(secretSessionId);
  }

  /** Reserves a slot, or returns false when a cap is reached. Synchronous, so no race can overfill. */
  tryAcquire(apiKeyId: string, secretSessionId: string | null): boolean {
    const forKey = this.perKey.get(apiKeyId) ?? 0;
    if (this.total >= this.maxSessions || forKey >= this.maxPerKey) return false;
    this.total++;
    this.perKey.set(apiKeyId, forKey + 1);
    if (secretSessionId) this.liveSecrets.add(secretSessionId);
    return true;
  }

  release(apiKeyId: string, secretSessionId: string | null): void {
    this.total--;
    const forKey = (this.perKey.get(apiKeyId) ?? 1) - 1;
    if (forKey <= 0) this.perKey.delete(apiKeyId);
    else this.perKey.set(apiKeyId, forKey);
    if (secretSessionId) this.liveSecrets.delete(secretSessionId);
  }
}
