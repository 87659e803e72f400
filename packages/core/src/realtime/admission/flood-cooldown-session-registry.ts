import type { Clock } from '../../shared/clock.js';
import type { AdmissionDecision, RealtimeSessionRegistry, SessionClaim } from './session-registry.js';

/**
 * The API key whose session was closed for sending more than its inbound budget (close 1008) may
 * not open another for `cooldownMs`: a flooding client that reconnects at once would otherwise hold
 * a capacity slot nearly all the time (closed within a second of each connect, back 100 ms later),
 * and a few of them fill a 2-core server's six slots against every other caller (the playground was
 * refused so in a trial). The key is the one that minted the ephemeral key when the session used
 * one: a client minting a fresh ephemeral key per session otherwise never waited (137 flooding
 * sessions in 15 s in a trial). So a browser user who floods holds back the app's new sessions for
 * the cooldown; the app's open sessions are untouched. The refusal is `flood_cooldown` (close 1013,
 * "retry later", with the seconds left); 0 turns it off.
 */
export class FloodCooldownSessionRegistry implements RealtimeSessionRegistry {
  /** API key id -> when its cooldown ends (clock ms). */
  private readonly until = new Map<string, number>();

  constructor(
    /** The registry it guards (the capacity admission, the caps): what /metrics reads capacity from. */
    readonly inner: RealtimeSessionRegistry,
    private readonly clock: Clock,
    private readonly cooldownMs: number,
  ) {}

  async admit(claim: SessionClaim): Promise<AdmissionDecision> {
    const left = this.remainingMs(claim);
    if (left > 0) {
      return {
        admitted: false,
        refusal: 'flood_cooldown',
        reason: `this key's last session sent more than its inbound budget; retry in ${Math.ceil(left / 1000)} s`,
      };
    }
    return this.inner.admit(claim);
  }

  penalize(claim: SessionClaim): void {
    if (this.cooldownMs <= 0) return;
    const now = this.clock.now();
    // Expired entries go as new ones come: the map holds only credentials that flooded lately.
    for (const [key, end] of this.until) if (end <= now) this.until.delete(key);
    this.until.set(claim.apiKeyId, now + this.cooldownMs);
  }

  /** How long this claim's API key must still wait (0: it may connect). */
  remainingMs(claim: SessionClaim): number {
    const end = this.until.get(claim.apiKeyId);
    return end === undefined ? 0 : Math.max(0, end - this.clock.now());
  }

  localSessions(): number {
    return this.inner.localSessions();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
