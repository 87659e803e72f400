import { CountsByKey } from '../../shared/counts-by-key.js';
import type { AdmissionDecision, RealtimeSessionRegistry, SessionCaps, SessionClaim } from './session-registry.js';

/**
 * The admission rules for one process (the default, one machine): counts in memory, checked and
 * taken in one synchronous step so concurrent connections cannot overfill a cap.
 */
export class InMemorySessionRegistry implements RealtimeSessionRegistry {
  private total = 0;
  private readonly perKey = new CountsByKey();
  private readonly liveSecrets = new Set<string>();

  constructor(private readonly caps: SessionCaps) {}

  async admit(claim: SessionClaim): Promise<AdmissionDecision> {
    const { apiKeyId, secretSessionId } = claim;
    if (secretSessionId && this.liveSecrets.has(secretSessionId)) return { admitted: false, refusal: 'duplicate_session' };
    const forKey = this.perKey.of(apiKeyId);
    if (this.total >= this.caps.maxSessions || forKey >= this.caps.maxSessionsPerKey) return { admitted: false, refusal: 'at_capacity' };
    this.total++;
    this.perKey.add(apiKeyId);
    if (secretSessionId) this.liveSecrets.add(secretSessionId);
    let released = false;
    return {
      admitted: true,
      lease: {
        release: async () => {
          if (released) return;
          released = true;
          this.total--;
          this.perKey.remove(apiKeyId);
          if (secretSessionId) this.liveSecrets.delete(secretSessionId);
        },
      },
    };
  }

  localSessions(): number {
    return this.total;
  }

  async close(): Promise<void> {}
}
