import type { CallJoiner, JoinedCall, Logger, Principal, RealtimeAdmission, RealtimeOutput, RealtimeSessionRegistry } from '@svc/core';

/** The session side of one connection (RealtimeSessionEngine implements it). */
export interface RealtimeSessionHandle {
  /** Takes one parsed JSON frame; never rejects. */
  handle(event: unknown): Promise<void>;
  /** A frame that could not be used at all (not JSON, binary). */
  rejectFrame(message: string): void | Promise<void>;
  /** The socket closed; stop and send nothing more. */
  transportClosed(): void;
}

export interface SessionContext {
  principal: Principal;
  /** `?model=` of the connection URL. */
  urlModel: string | null;
  /** Set when the client authenticated with an ephemeral key (the session id it announced). */
  sessionId?: string;
  output: RealtimeOutput;
}

/** What the gateway needs from the application; plain functions, no container. */
export interface RealtimeGatewayDeps {
  /** Resolves the principal of an API key or throws (ServiceUnavailableError: refused with 1013; any other error: invalid, 3000). */
  authenticateApiKey(secret: string): Promise<Principal>;
  /** Resolves an ephemeral key or throws for unknown / expired keys (ServiceUnavailableError: 1013). */
  redeemClientSecret(secret: string): Promise<{ principal: Principal; sessionId: string }>;
  createSession(context: SessionContext): RealtimeSessionHandle;
  /**
   * Whether an API key id still authenticates. When given, open sessions are re-checked every
   * `keyCheckIntervalMs` and those of a revoked key (also those opened with an ephemeral key it
   * minted) are closed with 3000.
   */
  isKeyActive?(apiKeyId: string): Promise<boolean>;
  /**
   * `?call_id=`: joins the principal's live phone call (the core's PhoneCallControl.join); throws
   * RealtimeCallNotFoundError for anyone else's or an unknown one. Absent: every call_id is unknown.
   */
  joinCall?(callId: string, principal: Principal, joiner: CallJoiner): JoinedCall;
  logger?: Logger;
}

export interface RealtimeGatewayOptions {
  /** Default `/v1/realtime`. */
  path?: string;
  /** Open sessions across all keys (over it: close 1013). */
  maxSessions: number;
  /** Open sessions per API key, ephemeral keys counting for the key that minted them. */
  maxSessionsPerKey: number;
  /**
   * The application's admission, shared with its other transports (WebRTC calls): its registry and
   * its revocation watch (which the application starts) are used, and `registry`,
   * `keyCheckIntervalMs` and `deps.isKeyActive` are not.
   */
  admission?: RealtimeAdmission;
  /**
   * Without `admission`: where admission is decided (caps and one session per ephemeral key). Default: this process's
   * counts (InMemorySessionRegistry with the two caps above); a shared registry makes them hold
   * across processes. Its owner (not the gateway) closes it.
   */
  registry?: RealtimeSessionRegistry;
  /** Largest accepted frame; bigger frames close the connection with 1009. Default 2 MiB. */
  maxFrameBytes?: number;
  /** Outgoing bytes queued for a client before it is dropped as too slow. Default 8 MiB. */
  maxBufferedBytes?: number;
  /** Client events waiting to be processed before the gateway stops reading the socket. Default 256. */
  maxPendingEvents?: number;
  /**
   * Inbound budget of one connection: frames per second (any frame: valid, invalid JSON, binary),
   * with a burst of the core's INBOUND_BURST_SECONDS of them. Over it: `error` rate_limit_exceeded,
   * close 1008. Default 200.
   */
  inboundEventsPerSecond?: number;
  /** The same in bytes per second; the burst is at least two frames of `maxFrameBytes`. Default 1 MiB. */
  inboundBytesPerSecond?: number;
  /** Without `admission`: how often open sessions' API keys are re-checked for revocation. Default 2 s. */
  keyCheckIntervalMs?: number;
  /** Ping period to find dead peers (0 disables). Default 30 s. */
  pingIntervalMs?: number;
  /** Told of every refused connection (the refusals metric). */
  onRefused?: (refusal: string) => void;
}

export interface RealtimeGateway {
  /** Closes every session (1001) and stops accepting upgrades. */
  close(): Promise<void>;
  activeSessions(): number;
}

export const DEFAULT_MAX_FRAME_BYTES = 2 * 1024 * 1024;
export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_PENDING_EVENTS = 256;
/**
 * Why these: a client streaming audio in 20 ms appends sends 50 events a second (100 at 10 ms) and
 * at most ~130 KB/s (48 kHz PCM16 as base64), plus a few control events; restoring a long history
 * at connect is a burst of item.create events. 200 events/s with a 5 s burst (1000 events) and
 * 1 MiB/s (8x real-time 48 kHz audio; a burst of two maximal frames) are never reached by those,
 * while a flood is stopped within its first 1000 frames.
 */
export const DEFAULT_INBOUND_EVENTS_PER_SECOND = 200;
export const DEFAULT_INBOUND_BYTES_PER_SECOND = 1024 * 1024;
