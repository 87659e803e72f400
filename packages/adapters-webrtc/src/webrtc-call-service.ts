import {
  CountsByKey,
  InvalidSdpOfferError,
  RealtimeCallNotFoundError,
  RealtimeCapacityError,
  RealtimeSessionActiveError,
  ServiceUnavailableError,
  silentLogger,
  type Logger,
  type AdmittedSession,
  type OpusCodec,
  type Principal,
  type RealtimeAdmission,
  type RealtimeCallAnswer,
  type RealtimeCallRequest,
  type RealtimeCalls,
  type RealtimeOutput,
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
  /**
   * Admission: the same use case (capacity, fairness, caps, one session per ephemeral key, flood
   * cooldown, revocation) as the WebSocket; its revocation watch ends a revoked key's calls.
   */
  admission: RealtimeAdmission;
  createSession(context: CallSessionContext): CallSessionHandle;
  /** Checks a multipart `session` before anything starts (throws the session.update error: 400). */
  checkSession(session: unknown): void;
  /**
   * Checks the multipart `session`'s avatar against the answered call (whether it has a video
   * track) before the answer is sent (throws the session.update error: 400); what needs the
   * photo's download (finding the face) is left to the session.
   */
  checkAvatar?(session: unknown, hasVideo: boolean): Promise<void>;
  /** Checks that the multipart `session`'s output voice exists for the caller (throws voice_not_found: 400). */
  checkVoice?(session: unknown, principal: Principal): Promise<void>;
  opus: OpusCodec;
  newCallId(): string;
  logger?: Logger;
}

/** Every call's PeerCall settings (ICE, timeouts, limits). */
export interface WebRtcCallOptions extends Omit<PeerCallOptions, 'opus' | 'logger'> {
  /** The live avatar's video (session.avatar); without it calls are voice only. */
  avatarVideo?: { encoder: LiveVideoEncoder; leadMs: number };
}

/** The core's RealtimeCalls port, with what the application and its diagnostics need of the calls. */
export interface WebRtcCalls extends RealtimeCalls {
  /** A live call of this process by its id (diagnostics and tests). */
  find(callId: string): PeerCall | undefined;
  /** Calls this process serves. */
  activeCalls(): number;
  /** Loads the WebRTC stack and runs its cold path once (a start-time warm-up). */
  warmUp(): Promise<void>;
  /** Ends every call and refuses new ones (shutdown). */
  close(): Promise<void>;
}

interface LiveCall {
  call: PeerCall;
  /** Its slot, held until the call ends. */
  admitted: AdmittedSession;
  /** The session id of the ephemeral key that placed it (null: an API key); that key hangs up only this call. */
  secretSessionId: string | null;
}

/**
 * Calls of one API key answered but not connected yet (no ICE check arrived). They count apart from
 * connected calls: each holds a slot for up to SVC_WEBRTC_CONNECT_TIMEOUT_MS, so without this a key
 * posting offers it never connects holds slots it does not use (a browser connects within a second
 * or two, one call at a time; two leave room for a retry).
 */
export const MAX_UNCONNECTED_CALLS_PER_KEY = 2;

/**
 * The WebRTC door to realtime sessions (implements the core's RealtimeCalls port): admits a call
 * through the session registry, answers its offer with a PeerCall and starts the same session
 * engine as the WebSocket on it. The call ends when the session does, when the client hangs up
 * (closes its peer connection, or `POST .../hangup`), when ICE does not connect in time, when the
 * peer goes silent, when its API key is revoked, and at shutdown; its slot is released each time
 * (at once on a hang-up, even of a call that never connected).
 */
export class WebRtcCallService implements WebRtcCalls {
  private readonly calls = new Map<string, LiveCall>();
  private readonly logger: Logger;
  private closed = false;
  /** Offers of each API key being answered now (not yet among `calls`). */
  private readonly placing = new CountsByKey();
  private peerCalls: Promise<typeof PeerCallModule> | null = null;

  constructor(
    private readonly deps: WebRtcCallDeps,
    private readonly options: WebRtcCallOptions,
  ) {
    this.logger = deps.logger ?? silentLogger;
  }

  /**
   * Loads the WebRTC stack (werift and what it imports; its memory: docs/deployment.md) once: with the first call, or
   * at start when SVC_WEBRTC_WARM_UP asks for it. A server that never takes a call never holds it.
   */
  warm(): Promise<typeof PeerCallModule> {
    this.peerCalls ??= import('./peer-call.js');
    return this.peerCalls;
  }

  /**
   * `warm()`, then werift's once-per-process cold path: its DTLS certificate and a loopback call
   * through ICE, DTLS, SRTP and SCTP (warmUpWebRtc), so a fresh server's first call connects like the
   * next ones (without it the first took several times as long: docs/realtime.md, `SVC_WEBRTC_WARM_UP`). At start when
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
    if (request.session !== null && this.deps.checkVoice) await this.deps.checkVoice(request.session, request.principal);
    const apiKeyId = request.principal.apiKeyId;
    this.checkUnconnected(apiKeyId);
    // Counted from here, so offers posted together cannot all pass the check above.
    this.placing.add(apiKeyId);
    try {
      return await this.place(request);
    } finally {
      this.placing.remove(apiKeyId);
    }
  }

  /** Admits, answers and starts one call (its offer already checked). */
  private async place(request: RealtimeCallRequest): Promise<RealtimeCallAnswer> {
    const { PeerCall, UnusableOfferError } = await this.warm();
    const admitted = await this.admit(request);
    const callId = this.deps.newCallId();
    const call = new PeerCall(callId, { ...this.options, opus: this.deps.opus, logger: this.logger });
    try {
      await call.negotiate(request.offerSdp);
    } catch (err) {
      admitted.end('negotiation_failed');
      await closeUnstarted(call);
      if (err instanceof UnusableOfferError) throw new InvalidSdpOfferError(err.message);
      throw err;
    }
    // A face the call could never show is refused now (400), not after the caller has connected.
    if (request.session !== null && this.deps.checkAvatar) {
      try {
        await this.deps.checkAvatar(request.session, call.video !== undefined);
      } catch (err) {
        admitted.end('session_refused');
        await closeUnstarted(call);
        throw err;
      }
    }
    this.calls.set(callId, { call, admitted, secretSessionId: request.secretSessionId });
    admitted.onRevoked(() => call.close('key_revoked', 'the API key of this call was revoked'));
    call.onClosed((ending, reason) => {
      this.release(callId, ending);
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

  /** Ends the call and frees its slot at once; the call is then unknown (a second hang-up: not found). */
  async hangup(callId: string, principal: Principal, secretSessionId: string | null = null): Promise<void> {
    const live = this.calls.get(callId);
    if (!live || live.admitted.principal.apiKeyId !== principal.apiKeyId) throw new RealtimeCallNotFoundError(callId);
    if (secretSessionId !== null && live.secretSessionId !== secretSessionId) throw new RealtimeCallNotFoundError(callId);
    this.release(callId, 'hangup');
    live.call.close('hangup', 'hung up');
  }

  /** The call is over for the caller: it leaves the live calls and its slot is freed (once, whichever ending comes first). */
  private release(callId: string, ending: string): void {
    const live = this.calls.get(callId);
    if (!live) return;
    this.calls.delete(callId);
    live.admitted.end(ending);
  }

  /** A key with MAX_UNCONNECTED_CALLS_PER_KEY calls being placed or waiting for their caller places no other. */
  private checkUnconnected(apiKeyId: string): void {
    let waiting = this.placing.of(apiKeyId);
    for (const { call, admitted } of this.calls.values()) if (admitted.principal.apiKeyId === apiKeyId && !call.isConnected) waiting++;
    if (waiting >= MAX_UNCONNECTED_CALLS_PER_KEY) {
      throw new RealtimeCapacityError(
        `This key has ${waiting} calls that have not connected yet; connect or hang up one of them, then retry.`,
      );
    }
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
    const ending = [...this.calls.values()].map(
      ({ call }) =>
        new Promise<void>((resolve) => {
          call.onClosed(() => resolve());
          call.close('server_shutdown', 'server shutting down');
        }),
    );
    await Promise.all(ending);
  }

  /** The shared admission, its refusals as the errors the HTTP side maps (409, 429, 503). */
  private async admit(request: RealtimeCallRequest): Promise<AdmittedSession> {
    const outcome = await this.deps.admission.admit({ principal: request.principal, secretSessionId: request.secretSessionId });
    if (outcome.admitted) return outcome.session;
    switch (outcome.refusal) {
      case 'dependency_unavailable':
        throw outcome.cause instanceof ServiceUnavailableError
          ? outcome.cause
          : new ServiceUnavailableError('realtime session registry', 'Admission could not be decided; retry later.');
      case 'duplicate_session':
        throw new RealtimeSessionActiveError();
      case 'flood_cooldown':
      case 'over_capacity':
        // The cooldown says how long to wait; capacity and fairness say which limit.
        throw outcome.reason ? new RealtimeCapacityError(`${outcome.reason}.`) : new RealtimeCapacityError();
      default:
        throw new RealtimeCapacityError();
    }
  }
}

/** Tears down a call that never started (its negotiation failed, or its session was refused). */
async function closeUnstarted(call: PeerCall): Promise<void> {
  await new Promise<void>((resolve) => {
    call.onClosed(() => resolve());
    call.close('internal_error', 'not started');
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
