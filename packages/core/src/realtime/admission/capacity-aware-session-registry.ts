import { CountsByKey } from '../../shared/counts-by-key.js';
import { capacityVerdict, fairShareVerdict, sessionCapacity, type CapacityLimits } from './capacity-policy.js';
import type { ServerLoadProbe } from './server-load.js';
import type { AdmissionDecision, RealtimeSessionRegistry, SessionClaim } from './session-registry.js';

/**
 * Admission by capacity, not only by count: before the registry's rules (the caps and the one
 * session per ephemeral key, in memory or in the shared Redis) a session must fit what THIS
 * process can serve (capacityVerdict). Capacity is per process because CPU, decoders and the
 * event loop are; the caps stay global. The slot is reserved before the registry is asked, so
 * connections admitted at the same moment cannot overfill it, and given back if the registry
 * refuses or fails. Within that capacity the last slots are kept for keys that hold none
 * (fairShareVerdict): one key cannot take every slot of a nearly full process.
 */
export class CapacityAwareSessionRegistry implements RealtimeSessionRegistry {
  private open = 0;
  /** Sessions this process serves per API key (ephemeral keys count for the key that minted them). */
  private readonly perKey = new CountsByKey();

  constructor(
    private readonly inner: RealtimeSessionRegistry,
    private readonly probe: ServerLoadProbe,
    private readonly limits: CapacityLimits,
  ) {}

  async admit(claim: SessionClaim): Promise<AdmissionDecision> {
    const load = this.probe.read();
    const verdict = capacityVerdict(this.open, load, this.limits);
    if (!verdict.admit) return { admitted: false, refusal: 'over_capacity', reason: verdict.reason };
    const fair = fairShareVerdict(this.open, this.perKey.of(claim.apiKeyId), sessionCapacity(load, this.limits));
    if (!fair.admit) return { admitted: false, refusal: 'over_capacity', reason: fair.reason };
    this.take(claim.apiKeyId);
    let decision: AdmissionDecision;
    try {
      decision = await this.inner.admit(claim);
    } catch (err) {
      this.giveBack(claim.apiKeyId);
      throw err;
    }
    if (!decision.admitted) {
      this.giveBack(claim.apiKeyId);
      return decision;
    }
    const { lease } = decision;
    let released = false;
    return {
      admitted: true,
      lease: {
        release: async () => {
          if (!released) {
            released = true;
            this.giveBack(claim.apiKeyId);
          }
          await lease.release();
        },
      },
    };
  }

  private take(apiKeyId: string): void {
    this.open++;
    this.perKey.add(apiKeyId);
  }

  private giveBack(apiKeyId: string): void {
    this.open--;
    this.perKey.remove(apiKeyId);
  }

  /** Sessions this process can serve at the current load (the /metrics gauge). */
  capacity(): number {
    return sessionCapacity(this.probe.read(), this.limits);
  }

  localSessions(): number {
    return this.inner.localSessions();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
