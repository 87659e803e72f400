import {
  InvalidSdpOfferError,
  RealtimeCallNotFoundError,
  RealtimeCapacityError,
  RealtimeSessionActiveError,
  ServiceUnavailableError,
  silentLogger,
  type Logger,
  type OpusCodec,
  type Principal,
  type RealtimeCallAnswer,
  type RealtimeCallRequest,
  type RealtimeCalls,
  type RealtimeOutput,
  type RealtimeSessionRegistry,
  type SessionLease,
  type SessionMedia,
  type SessionVideoOutput,
  type LiveVideoEncoder,
} from '@svc/core';
import { checkOffer } from './offer-checks.js';
import type * as PeerCallModule from './peer-call.js';
import type { PeerCall, CallSessionHandle, PeerCallOptions } from './peer-call.js';

/** What a call's session is started with (the engine factory the WebSocket gateway uses too). */
export interface CallSessionContext {
  principal: Principal;
  /** The id announced by an ephemeral key. */
  sessionId?: string;
  output: RealtimeOutput;
  media: SessionMedia;
  /** The call's video, when its offer receives video and the server has the live avatar. */
  video?: SessionVideoOutput;
}

export interface WebRtcCallDeps {
  /** Admission: the same registry (caps, one session per ephemeral key) as the WebSocket. */
  registry: RealtimeSessionRegistry;
  createSession(context: CallSessionContext): CallSessionHandle;
  /** Checks a multipart `session` before anything starts (throws the session.update error: 400). */
  checkSession(session: unknown): void;
  opus: OpusCodec;
  newCallId(): string;
  /** When given, live calls' API keys are re-checked every `keyCheckIntervalMs`; a revoked key's calls end. */
  isKeyActive?(apiKeyId: string): Promise<boolean>;
  logger?: Logger;
}

/** Every call's PeerCall settings (ICE, timeouts, limits), and how often live calls' keys are re-checked. */
export interface WebRtcCallOptions extends Omit<PeerCallOptions, 'opus' | 'logger'> {
  keyCheckIntervalMs?: number;
  /** The live avatar's video (session.avatar); without it calls are voice only. */
  avatarVideo?: { encoder: LiveVideoEncoder; leadMs: number };
}

interface LiveCall {
  call: PeerCall;
  apiKeyId: string;
}

/**
 * The WebRTC door to realtime sessions (implements the core's RealtimeCalls port): admits a call
 * through the session registry, answers its offer with a PeerCall and starts the same session
 * engine as the WebSocket on it. The call ends when the session does, when the client hangs up
 * (closes its peer connection, or `POST .../hangup`), when ICE does not connect in time, when the
 * peer goes silent, when its API key is revoked, and at shutdown; its slot is released each time.
 */
export class WebRtcCallService implements RealtimeCalls {
  private readonly calls = new Map<string, LiveCall>();
  private readonly logger: Logger;
  private readonly keyChecker: ReturnType<typeof setInterval> | null;
  private closed = false;
  private peerCalls: Promise<typeof PeerCallModule> | null = null;

  constructor(
    private readonly deps: WebRtcCallDeps,
    private readonly options: WebRtcCallOptions,
  ) {
    this.logger = deps.logger ?? silentLogger;
    this.keyChecker = deps.isKeyActive ? setInterval(() => void this.checkKeys(), options.keyCheckIntervalMs ?? 2000) : null;
    this.keyChecker?.unref?.();
  }

  /**
   * Loads the WebRTC stack (werift and what it imports: ~34 MB of RSS) once: with the first call, or
   * at start when SVC_WEBRTC_WARM_UP asks for it. A server that never takes a call never holds it.
   */
  warm(): Promise<typeof PeerCallModule> {
    this.peerCalls ??= import('./peer-call.js');
    return this.peerCalls;
  }

  /**
   * `warm()`, then werift's once-per-process cold path: its DTLS certificate and a loopback call
   * through ICE, DTLS, SRTP and SCTP (warmUpWebRtc), so a fresh server's first call connects like the
   * next ones (without it: 1.7 s against 0.25 s for the second, at load 10). At start when
   * SVC_WEBRTC_WARM_UP is background or blocking; never on a call's path.
   */
  async warmUp(): Promise<void> {
    await this.warm();
    const { warmUpWebRtc } = await import('./warm-up.js');
    const ms = await warmUpWebRtc();
    this.logger.info({ ms: Math.round(ms) }, 'WebRTC warmed up (DTLS certificate, a loopback call)');
  }

  async create(request: RealtimeCallRequest): Promise<RealtimeCallAnswer> {
    if (this.closed) throw new ServiceUnavailableError('realtime calls', 'The server is shutting down.');
    checkOffer(request.offerSdp);
    if (request.session !== null) this.deps.checkSession(request.session);
    const { PeerCall, UnusableOfferError } = await this.warm();
    const lease = await this.admit(request);
    const callId = this.deps.newCallId();
    const call = new PeerCall(callId, { ...this.options, opus: this.deps.opus, logger: this.logger });
    try {
      await call.negotiate(request.offerSdp);
    } catch (err) {
      await lease.release().catch(() => undefined);
      await closeUnstarted(call);
      if (err instanceof UnusableOfferError) throw new InvalidSdpOfferError(err.message);
      throw err;
    }
    const live: LiveCall = { call, apiKeyId: request.principal.apiKeyId };
    this.calls.set(callId, live);
    call.onClosed((ending, reason) => {
      this.calls.delete(callId);
      if (ending === 'inbound_rate_exceeded') this.deps.registry.penalize?.({ apiKeyId: request.principal.apiKeyId, secretSessionId: request.secretSessionId });
      lease.release().catch((err: unknown) => this.logger.warn({ err: String(err) }, 'could not release a realtime session slot; it expires with its lease'));
      this.logger.info({ callId, ending, reason }, 'realtime call ended');
    });
    let session: CallSessionHandle;
    try {
      session = this.deps.createSession({
        principal: request.principal,
        ...(request.secretSessionId ? { sessionId: request.secretSessionId } : {}),
        output: call,
        media: call.media,
        ...(call.video ? { video: call.video } : {}),
      });
    } catch (err) {
      this.logger.error({ err: String(err) }, 'could not start a realtime call session');
      call.close('internal_error', 'internal error');
      throw err;
    }
    call.start(session);
    // The session is configured at once (as the modelled API does): session.created is the first
    // event on the data channel, and the caller's audio counts from the first packet.
    void session.handle({ type: 'session.update', session: { type: 'realtime', ...(isObject(request.session) ? request.session : {}) } });
    this.logger.info({ callId, apiKeyId: request.principal.apiKeyId }, 'realtime call answered');
    return { callId, answerSdp: call.answerSdp };
  }

  async hangup(callId: string, principal: Principal): Promise<void> {
    const live = this.calls.get(callId);
    if (!live || live.apiKeyId !== principal.apiKeyId) throw new RealtimeCallNotFoundError(callId);
    live.call.close('hangup', 'hung up');
  }

  /** A live call of this process by its id (diagnostics and tests). */
  find(callId: string): PeerCall | undefined {
    return this.calls.get(callId)?.call;
  }

  /** Calls this process serves. */
  activeCalls(): number {
    return this.calls.size;
  }

  /** Ends every call and refuses new ones. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.keyChecker) clearInterval(this.keyChecker);
    const ending = [...this.calls.values()].map(
      ({ call }) =>
        new Promise<void>((resolve) => {
          call.onClosed(() => resolve());
          call.close('server_shutdown', 'server shutting down');
        }),
    );
    await Promise.all(ending);
  }

  private async admit(request: RealtimeCallRequest): Promise<SessionLease> {
    let decision;
    try {
      decision = await this.deps.registry.admit({ apiKeyId: request.principal.apiKeyId, secretSessionId: request.secretSessionId });
    } catch (err) {
      this.logger.warn({ err: String(err) }, 'realtime session registry unavailable; call refused');
      throw err instanceof ServiceUnavailableError ? err : new ServiceUnavailableError('realtime session registry', 'Admission could not be decided; retry later.');
    }
    if (decision.admitted) return decision.lease;
    if (decision.refusal === 'duplicate_session') throw new RealtimeSessionActiveError();
    // A flood's cooldown says how long to wait; the capacity refusals keep the generic message.
    throw decision.refusal === 'flood_cooldown' && decision.reason ? new RealtimeCapacityError(`${decision.reason}.`) : new RealtimeCapacityError();
  }

  private checkingKeys = false;
  private async checkKeys(): Promise<void> {
    const isKeyActive = this.deps.isKeyActive;
    if (!isKeyActive || this.checkingKeys) return;
    this.checkingKeys = true;
    try {
      for (const keyId of new Set([...this.calls.values()].map((c) => c.apiKeyId))) {
        const active = await isKeyActive(keyId).catch(() => true); // a storage hiccup is not a revocation
        if (active) continue;
        for (const live of this.calls.values()) if (live.apiKeyId === keyId) live.call.close('key_revoked', 'the API key of this call was revoked');
      }
    } finally {
      this.checkingKeys = false;
    }
  }
}

/** Tears down a call that never started (its negotiation failed). */
async function closeUnstarted(call: PeerCall): Promise<void> {
  await new Promise<void>((resolve) => {
    call.onClosed(() => resolve());
    call.close('internal_error', 'negotiation failed');
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

