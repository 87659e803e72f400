/**
 * Who may open a realtime session right now. The spec's admission rules, whichever process the
 * client reaches: at most `maxSessions` open sessions in all and `maxSessionsPerKey` per API key
 * (ephemeral keys count for the key that minted them), over either: close 1013; and at most one
 * live session per ephemeral key, a second one: close 4009.
 *
 * The in-memory adapter (InMemorySessionRegistry) holds these counts for one process; the Redis
 * adapter holds them for every process sharing a Redis, as leases the live process keeps renewing
 * (a process killed with -9 stops renewing and its slots free themselves when the lease runs out).
 */
export interface SessionClaim {
  apiKeyId: string;
  /** The ephemeral key's session id; null for a session opened with an API key. */
  secretSessionId: string | null;
}

/**
 * `at_capacity`: a count cap (SVC_REALTIME_MAX_SESSIONS, _PER_KEY); `over_capacity`: this process
 * cannot serve one more speaking session (CapacityAwareSessionRegistry), with a short reason;
 * `flood_cooldown`: this credential's last session flooded (FloodCooldownSessionRegistry).
 * All three close with 1013 (retry later).
 */
export type AdmissionRefusal = 'duplicate_session' | 'at_capacity' | 'over_capacity' | 'flood_cooldown';

export type AdmissionDecision = { admitted: true; lease: SessionLease } | { admitted: false; refusal: AdmissionRefusal; reason?: string };

/** One admitted session's slot; released once when the session ends. */
export interface SessionLease {
  release(): Promise<void>;
}

export interface RealtimeSessionRegistry {
  /**
   * Admits a session or says why not. Rejects with ServiceUnavailableError when the registry's
   * store does not answer (the caller refuses the session: it cannot tell whether a cap is reached).
   */
  admit(claim: SessionClaim): Promise<AdmissionDecision>;
  /** Sessions admitted by THIS process and not yet released (the /metrics gauge). */
  localSessions(): number;
  /**
   * This claim's session was closed for sending more than its inbound budget: its credential waits
   * before the next (FloodCooldownSessionRegistry). Registries without a cooldown ignore it.
   */
  penalize?(claim: SessionClaim): void;
  /** Stops background work (lease renewal). Leases still held are left to expire. */
  close(): Promise<void>;
}

export interface SessionCaps {
  /** Open sessions across all keys. */
  maxSessions: number;
  /** Open sessions per API key. */
  maxSessionsPerKey: number;
}
