import type { Principal } from '../../auth/api-key.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { repeatEvery, type RecurringTask } from '../../shared/recurring-task.js';
import type { AdmissionRefusal, RealtimeSessionRegistry } from './session-registry.js';

/** Who asks for a session, once its transport has checked the credential. */
export interface AdmissionRequest {
  principal: Principal;
  /** The ephemeral key's session id (null for an API key). */
  secretSessionId: string | null;
}

/** A refusal: the registry's, or `dependency_unavailable` (with the registry's failure as `cause`) when it could not decide. */
export type AdmissionOutcome =
  | { admitted: true; session: AdmittedSession }
  | { admitted: false; refusal: AdmissionRefusal | 'dependency_unavailable'; reason?: string; cause?: unknown };

/** How a transport ends its session when the session's API key is revoked. */
export type RevocationHandler = () => void;

/**
 * One admitted session, whatever carries it: it holds the slot until `end`, and is ended by its
 * transport (through the handler it gave) when its API key is revoked.
 */
export interface AdmittedSession {
  readonly principal: Principal;
  readonly secretSessionId: string | null;
  /** Where the transport is told that the session's API key was revoked (set once, after the session opened). */
  onRevoked(handler: RevocationHandler): void;
  /**
   * The session ended, for any reason (`ending` names it). Frees the slot once (a failed release is
   * logged: the lease then expires on its own), and a session closed for flooding
   * (`inbound_rate_exceeded`) makes its key wait (the registry's cooldown).
   */
  end(ending: string): void;
}

export interface RealtimeAdmissionDeps {
  registry: RealtimeSessionRegistry;
  /** Whether an API key still authenticates; without it, revoked keys' sessions are not ended. */
  isKeyActive?: (apiKeyId: string) => Promise<boolean>;
  clock: Clock;
  logger: Logger;
}

/** The ending every transport reports for a session closed for sending more than its inbound budget. */
export const FLOOD_ENDING = 'inbound_rate_exceeded';

/** How often the keys of open sessions are re-checked for revocation, unless told otherwise. */
export const DEFAULT_KEY_CHECK_INTERVAL_MS = 2000;

/**
 * The one admission path of realtime sessions, for every transport (the WebSocket gateway, WebRTC
 * calls): asks the registry (capacity, fairness across keys, caps, one session per ephemeral key,
 * flood cooldown), says refusals where an operator looks, hands the transport a session that frees
 * its slot once when it ends, penalizes a flood, and ends the sessions of a revoked key (the key
 * may be revoked by another process, the keys CLI, so it is polled while `watchRevocations` runs).
 */
export class RealtimeAdmission {
  private readonly live = new Set<LiveSession>();
  private checking = false;

  constructor(private readonly deps: RealtimeAdmissionDeps) {}

  async admit(request: AdmissionRequest): Promise<AdmissionOutcome> {
    const { principal, secretSessionId } = request;
    const { logger } = this.deps;
    let decision;
    try {
      decision = await this.deps.registry.admit({ apiKeyId: principal.apiKeyId, secretSessionId });
    } catch (err) {
      logger.warn({ err: String(err) }, 'realtime session registry unavailable; session refused');
      return { admitted: false, refusal: 'dependency_unavailable', cause: err };
    }
    if (!decision.admitted) {
      // A server refusing callers it cannot serve is working as designed, but should grow: said at info.
      if (decision.refusal === 'over_capacity')
        logger.info({ apiKeyId: principal.apiKeyId, reason: decision.reason }, 'realtime session refused: server at capacity');
      if (decision.refusal === 'flood_cooldown')
        logger.info({ apiKeyId: principal.apiKeyId, reason: decision.reason }, 'realtime session refused: its key flooded lately');
      return { admitted: false, refusal: decision.refusal, ...(decision.reason ? { reason: decision.reason } : {}) };
    }
    const session = new LiveSession(principal, secretSessionId, (ended, ending) => {
      this.live.delete(ended);
      decision.lease
        .release()
        .catch((err: unknown) => logger.warn({ err: String(err) }, 'could not release a realtime session slot; it expires with its lease'));
      if (ending === FLOOD_ENDING) this.deps.registry.penalize?.({ apiKeyId: principal.apiKeyId, secretSessionId });
    });
    this.live.add(session);
    return { admitted: true, session };
  }

  /** Sessions this process holds slots for, over every transport (the registry's count: the /metrics gauge). */
  localSessions(): number {
    return this.deps.registry.localSessions();
  }

  /** Starts re-checking the keys of open sessions every `intervalMs` (a start hook's job); returns its stop. */
  watchRevocations(intervalMs = DEFAULT_KEY_CHECK_INTERVAL_MS): RecurringTask | null {
    if (!this.deps.isKeyActive) return null;
    return repeatEvery(
      this.deps.clock,
      {
        name: 'realtime key revocation check',
        firstMs: intervalMs,
        everyMs: intervalMs,
        onError: (err) => this.deps.logger.warn({ err: String(err) }, 'could not re-check realtime keys'),
      },
      () => this.endRevokedSessions(),
    );
  }

  /** One pass: ends the sessions whose API key no longer authenticates. */
  async endRevokedSessions(): Promise<void> {
    const isKeyActive = this.deps.isKeyActive;
    if (!isKeyActive || this.checking) return;
    this.checking = true;
    try {
      for (const keyId of new Set([...this.live].map((s) => s.principal.apiKeyId))) {
        const active = await isKeyActive(keyId).catch(() => true); // a storage hiccup is not a revocation
        if (active) continue;
        for (const session of [...this.live]) if (session.principal.apiKeyId === keyId) session.revoke();
        this.deps.logger.info({ apiKeyId: keyId }, 'ended the realtime sessions of a revoked API key');
      }
    } finally {
      this.checking = false;
    }
  }
}

class LiveSession implements AdmittedSession {
  private revoked: RevocationHandler | null = null;
  private ended = false;

  constructor(
    readonly principal: Principal,
    readonly secretSessionId: string | null,
    private readonly onEnd: (session: LiveSession, ending: string) => void,
  ) {}

  onRevoked(handler: RevocationHandler): void {
    this.revoked = handler;
  }

  revoke(): void {
    this.revoked?.();
  }

  end(ending: string): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this, ending);
  }
}
