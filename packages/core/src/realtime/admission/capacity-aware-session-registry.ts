import { capacityVerdict, sessionCapacity, type CapacityLimits } from './capacity-policy.js';
import type { ServerLoadProbe } from './server-load.js';
import type { AdmissionDecision, RealtimeSessionRegistry, SessionClaim } from './session-registry.js';

/**
 * Admission by capacity, not only by count: before the registry's rules (the caps and the one
 * session per ephemeral key, in memory or in the shared Redis) a session must fit what THIS
 * process can serve (capacityVerdict). Capacity is per process because CPU, decoders and the
 * event loop are; the caps stay global. The slot is reserved before the registry is asked, so
 * connections admitted at the same moment cannot overfill it, and given back if the registry
 * refuses or fails.
 */
export class CapacityAwareSessionRegistry implements RealtimeSessionRegistry {
  private open = 0;

  constructor(
    private readonly inner: RealtimeSessionRegistry,
    private readonly probe: ServerLoadProbe,
    private readonly limits: CapacityLimits,
  ) {}

  async admit(claim: SessionClaim): Promise<AdmissionDecision> {
    const verdict = capacityVerdict(this.open, this.probe.read(), this.limits);
    if (!verdict.admit) return { admitted: false, refusal: 'over_capacity', reason: verdict.reason };
    this.open++;
    let decision: AdmissionDecision;
    try {
      decision = await this.inner.admit(claim);
    } catch (err) {
      this.open--;
      throw err;
    }
    if (!decision.admitted) {
      this.open--;
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
            this.open--;
          }
          await lease.release();
        },
      },
    };
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
