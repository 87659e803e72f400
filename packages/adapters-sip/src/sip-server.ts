import { isIP, type Socket as TcpSocket } from 'node:net';
import {
  InvalidRequestError,
  RealtimeCallNotRingingError,
  RealtimeCapacityError,
  ServiceError,
  ServiceUnavailableError,
  silentLogger,
  type Logger,
  type Principal,
  type RateLimiter,
  type RealtimeAdmission,
  type RealtimeOutput,
  type SessionMedia,
  type OpusCodec,
} from '@svc/core';
import { singleUser, type DigestCredentials, type Ha1Lookup } from './digest-auth.js';
import { InviteScreening } from './invite-screening.js';
import { referHeaders, referOutcome, transferConnected } from './call-transfer.js';
import {
  cancelsInvite,
  headerParam,
  parseSipMessage,
  SipParseError,
  type SipParseLimits,
  type SipRequest,
  DEFAULT_PARSE_LIMITS,
} from './sip-message.js';
import { buildAudioAnswer, parseAudioOffer, SdpError, type AudioOffer } from './sdp.js';
import { SipCall, type SipCallEnding, type SipCallSession } from './sip-call.js';
import { SourceAllowlist } from './source-allowlist.js';
import { SipTransport, type Peer } from './sip-transport.js';
import { SERVER_NAME, SipResponder, statusPhrase } from './sip-responder.js';
import { hostPort, inDialogRequest, newDialog, sipHeadersOf, type Dialog } from './sip-dialog.js';
import { ClientTransactions, T1_MS } from './client-transactions.js';
import { localAddressToward } from './local-address.js';
import type { PhoneCallDirectory } from './phone-call-directory.js';

/** A call that rings: what the application is told (the `realtime.call.incoming` webhook) before it accepts or rejects. */
export interface IncomingCall {
  callId: string;
  principal: Principal;
  sipHeaders: Array<{ name: string; value: string }>;
}

/** Who a call acts as and how it is answered: the server's one key (its settings), or a key whose stored SIP user the caller proved. */
export interface SipAccount {
  /** The API key calls act as, looked up per call (null: revoked, the call is refused with 403). */
  principal(): Promise<Principal | null>;
  /** The session configuration a call is accepted with when nobody is told of it (no `announce`). */
  session: Record<string, unknown>;
  /**
   * Tells the application of a ringing call (the webhook); absent: the call is accepted at once with
   * `session`. A rejected promise says nobody could be told: the call is then refused at once.
   */
  announce?(call: IncomingCall, gone: AbortSignal): void | Promise<void>;
}

/** The digest users API keys stored for themselves (docs/sip.md, "SIP credentials per API key"). */
export interface SipAccounts {
  ha1(username: string): Promise<string | null>;
  /** Whether any key has stored a user: then every INVITE must prove one (the user name is what selects the key). */
  any(): Promise<boolean>;
  /** The account of a proved user name; null when it is gone since. */
  account(username: string): Promise<SipAccount | null>;
}

export interface SipServerDeps {
  /** The same admission (capacity, fairness, caps, revocation) as the WebSocket and WebRTC sessions. */
  admission: RealtimeAdmission;
  /** The API key calls act as, looked up per call (null: revoked, the call is refused with 403). */
  principal(): Promise<Principal | null>;
  /** Per-key digest users; absent: only the server's own (`SipServerOptions.credentials`) or none. */
  accounts?: SipAccounts;
  /** Starts the realtime session of a call (the engine factory of the other transports). */
  createSession(context: { principal: Principal; output: RealtimeOutput; media: SessionMedia }): SipCallSession;
  /** The session configuration a call is accepted with when nobody is told of it (no `announce`). */
  session: Record<string, unknown>;
  /**
   * Tells the application of a ringing call (the webhook); it then answers through the directory
   * (accept, reject) before `ringTimeoutMs`. Absent: every call is accepted at once with `session`.
   * A rejected promise says nobody could be told (every delivery failed): the call is refused at
   * once with 480 instead of ringing until the timeout.
   */
  announce?(call: IncomingCall, gone: AbortSignal): void | Promise<void>;
  /** Where the calls are found by id (the API's accept/reject/refer/hangup and `?call_id=` join). */
  directory?: PhoneCallDirectory;
  /** INVITEs per source address (a token bucket keyed `sip:<address>`). */
  rateLimiter: RateLimiter;
  newCallId(): string;
  /** Opus for the callers that offer it (preferred over G.711); without it calls are G.711 only. */
  opus?: OpusCodec;
  logger?: Logger;
}

export interface SipServerOptions {
  host: string;
  port: number;
  /** Addresses and CIDR ranges that may call (e.g. the PBX); nobody else gets past 403. */
  allowedSources: string[];
  /** When set, a caller must also prove these (digest, 401 challenge). */
  credentials?: DigestCredentials;
  /** A 200 OK not acknowledged by then ends the call (RFC 3261's 64 x T1 is 32 s). */
  ackTimeoutMs: number;
  mediaTimeoutMs: number;
  audioLeadMs: number;
  /** With `announce`: a call not accepted or rejected by then, or that nobody could be told of, is refused (480). Default 30 s. */
  ringTimeoutMs?: number;
  limits?: SipParseLimits;
  /** The address put in SDP and Contact when bound to every interface (0.0.0.0): the one callers reach. */
  advertisedAddress?: string;
}

/** RFC 3261's T2: the 200 OK is resent at T1, doubling up to T2, until the ACK comes. */
const T2_MS = 4000;
const ALLOW = 'INVITE, ACK, BYE, CANCEL, OPTIONS, NOTIFY';
const DEFAULT_RING_TIMEOUT_MS = 30_000;
/** Calls ringing at once, waiting for the application (each holds only its INVITE). */
const MAX_RINGING = 64;

/**
 * A SIP user agent server over UDP and TCP (RFC 3261) that answers phone calls with realtime sessions:
 * OPTIONS, INVITE (100, 180, 200 with an SDP answer; 401 digest challenge, 403, 488, 503 at
 * capacity), ACK, CANCEL, BYE both ways, re-INVITE (hold), REFER to the caller (a transfer) and
 * the NOTIFYs that report it. It never relays, proxies or registers: every response goes back to
 * the address the request came from, and requests for other methods get 405. Malformed messages
 * are dropped (logged at debug), never thrown. Sockets: SipTransport; answers: SipResponder.
 */
export class SipServer {
  private readonly transport: SipTransport;
  private readonly responder: SipResponder;
  private readonly outgoing = new ClientTransactions();
  private readonly dialogs = new Map<string, Dialog>();
  private readonly allowed: SourceAllowlist;
  private readonly screening: InviteScreening;
  private readonly logger: Logger;
  private readonly limits: SipParseLimits;
  private closed = false;

  constructor(
    private readonly deps: SipServerDeps,
    private readonly options: SipServerOptions,
  ) {
    this.logger = deps.logger ?? silentLogger;
    this.limits = options.limits ?? DEFAULT_PARSE_LIMITS;
    const serverUser = options.credentials ? singleUser(options.credentials) : null;
    const accounts = deps.accounts;
    const ha1Of: Ha1Lookup | undefined =
      serverUser || accounts ? async (username) => (await serverUser?.(username)) ?? (await accounts?.ha1(username)) ?? null : undefined;
    this.screening = new InviteScreening(
      deps.rateLimiter,
      ha1Of,
      async () => !!options.credentials || (accounts ? await accounts.any() : false),
      this.logger,
      !!deps.opus,
    );
    this.allowed = new SourceAllowlist(options.allowedSources);
    this.transport = new SipTransport(
      {
        host: options.host,
        port: options.port,
        maxMessageBytes: this.limits.maxMessageBytes,
        allowed: this.allowed,
        logger: this.logger,
        carriesCall: (connection: TcpSocket) => [...this.dialogs.values()].some((d) => d.peer.stream === connection),
      },
      (data, peer) => this.onMessage(data, peer),
    );
    this.responder = new SipResponder((message, peer) => this.transport.send(message, peer));
  }

  /**
   * Binds UDP and TCP on one port. With port 0 the UDP port is any free one, and its number may be
   * taken for TCP by another program: then both are tried again on another number.
   */
  static async listen(deps: SipServerDeps, options: SipServerOptions): Promise<SipServer> {
    for (let attempt = 1; ; attempt++) {
      const server = new SipServer(deps, options);
      try {
        await server.transport.listen();
        return server;
      } catch (err) {
        await server.close();
        const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
        if (options.port !== 0 || !taken || attempt >= 5) throw err;
      }
    }
  }

  get address(): { address: string; port: number } {
    return this.transport.local;
  }

  /** Calls with a session now (answered or confirmed). */
  activeCalls(): number {
    return this.liveCalls().length;
  }

  private readonly answeredListeners: Array<(call: SipCall) => void> = [];

  /** Hears every call answered from now on (tests, benchmarks, diagnostics). */
  onCallAnswered(listener: (call: SipCall) => void): () => void {
    this.answeredListeners.push(listener);
    return () => {
      const i = this.answeredListeners.indexOf(listener);
      if (i >= 0) this.answeredListeners.splice(i, 1);
    };
  }

  /** The calls with a session now (tests and diagnostics). */
  liveCalls(): SipCall[] {
    return [...this.dialogs.values()].flatMap((d) => (d.call && !d.call.isEnded ? [d.call] : []));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [callId, dialog] of [...this.dialogs]) this.hangUp(callId, dialog, 'server_shutdown', 'server shutting down');
    await this.transport.close();
  }

  /** One message from either transport; whatever goes wrong handling it is logged, never thrown. */
  private onMessage(data: Buffer, peer: Peer): void {
    try {
      this.handle(data, peer);
    } catch (err) {
      this.logger.warn({ err: String(err), from: peer.address }, 'a SIP message could not be handled');
    }
  }

  private handle(data: Buffer, peer: Peer): void {
    // keep-alives (CRLF pings, RFC 5626) and stray bytes
    if (data.length <= 4) return;
    let message;
    try {
      message = parseSipMessage(data, this.limits);
    } catch (err) {
      if (!(err instanceof SipParseError)) throw err;
      this.logger.debug({ from: peer.address, reason: err.message }, 'dropped a malformed SIP message');
      return;
    }
    if (message.kind === 'response') return this.outgoing.onResponse(message);
    if (!this.allowed.allows(peer.address)) {
      if (message.method !== 'ACK') this.responder.reply(message, peer, 403, 'Forbidden');
      this.logger.info(
        { from: peer.address, method: message.method },
        'SIP request refused: source address not allowed (SVC_SIP_ALLOWED_SOURCES)',
      );
      return;
    }
    switch (message.method) {
      case 'OPTIONS':
        return void this.responder.reply(message, peer, 200, 'OK', [
          ['Allow', ALLOW],
          ['Accept', 'application/sdp'],
        ]);
      case 'INVITE':
        return void this.onInvite(message, peer).catch((err: unknown) => this.logger.warn({ err: String(err) }, 'an INVITE failed'));
      case 'ACK':
        return this.onAck(message);
      case 'CANCEL':
        return this.onCancel(message, peer);
      case 'BYE':
        return this.onBye(message, peer);
      case 'NOTIFY':
        return this.onNotify(message, peer);
      default:
        // REGISTER included: not a registrar; nothing registers here, and this server registers nowhere
        return void this.responder.reply(message, peer, 405, 'Method Not Allowed', [['Allow', ALLOW]]);
    }
  }

  private async onInvite(invite: SipRequest, peer: Peer): Promise<void> {
    const callId = invite.headers.get('call-id')!;
    const existing = this.dialogs.get(callId);
    const toTag = headerParam(invite.headers.get('to'), 'tag');
    if (existing && toTag && toTag === existing.localTag) return this.onReInvite(existing, invite, peer);
    if (existing) {
      // a retransmission: the last answer again
      if (existing.lastResponse) this.transport.send(existing.lastResponse, existing.peer);
      return;
    }
    if (toTag) return void this.responder.reply(invite, peer, 481, 'Call/Transaction Does Not Exist');
    const remembered = this.responder.rememberedFor(invite);
    if (remembered) return void this.transport.send(remembered, peer);
    if (this.closed) return this.responder.refuse(invite, peer, 503, 'Service Unavailable', 'the server is shutting down');
    let screened: Awaited<ReturnType<InviteScreening['screen']>>;
    let account: SipAccount | null;
    try {
      screened = await this.screening.screen(invite, peer.address);
      account = 'refusal' in screened ? null : await this.accountOf(screened.username);
    } catch (err) {
      // The stored credentials could not be read (the database is down): the caller may retry.
      this.logger.warn({ err: String(err), from: peer.address }, 'SIP INVITE refused: its credentials could not be checked');
      return this.responder.refuse(invite, peer, 503, 'Service Unavailable', 'credentials could not be checked; retry later', [
        ['Retry-After', '5'],
      ]);
    }
    if ('refusal' in screened) {
      const { status, phrase, reason, headers } = screened.refusal;
      return this.responder.refuse(invite, peer, status, phrase, reason, headers);
    }
    const { offer } = screened;
    if (!account) return this.responder.refuse(invite, peer, 403, 'Forbidden', 'these SIP credentials were removed');
    if (account.announce && this.ringing() >= MAX_RINGING)
      return this.responder.refuse(invite, peer, 503, 'Service Unavailable', 'too many calls waiting for an answer', [
        ['Retry-After', '5'],
      ]);
    const dialog = newDialog(this.deps.newCallId(), invite, peer, offer);
    this.dialogs.set(callId, dialog);
    dialog.lastResponse = this.responder.reply(invite, peer, 100, 'Trying', [], false);
    try {
      await this.ring(callId, dialog, account);
    } catch (err) {
      this.logger.error({ err: String(err), callId }, 'could not answer a SIP call');
      this.fail(callId, dialog, 500, 'Server Internal Error', 'internal error');
    }
  }

  /** The server's own account, unless the caller proved a user a key stored. */
  private async accountOf(username: string | null): Promise<SipAccount | null> {
    const own: SipAccount = { principal: () => this.deps.principal(), session: this.deps.session };
    if (this.deps.announce) own.announce = (call, gone) => this.deps.announce!(call, gone);
    if (username === null || username === this.options.credentials?.username || !this.deps.accounts) return own;
    return this.deps.accounts.account(username);
  }

  private ringing(): number {
    let n = 0;
    for (const d of this.dialogs.values()) if (d.state === 'proceeding' && !d.decided) n++;
    return n;
  }

  /**
   * The call rings (180) under its key: with `announce` the application is told and answers
   * through the directory before the ring timeout; without it the call is accepted at once.
   */
  private async ring(callId: string, dialog: Dialog, account: SipAccount): Promise<void> {
    const principal = await account.principal();
    if (!principal) return this.fail(callId, dialog, 403, 'Forbidden', 'the API key this port acts as is revoked');
    if (dialog.state === 'ended') return;
    dialog.principal = principal;
    const gone = new AbortController();
    const unregister = this.deps.directory?.register(dialog.publicId, {
      ownerKeyId: principal.apiKeyId,
      ringing: () => dialog.state === 'proceeding' && !dialog.decided,
      call: () => dialog.call,
      // the application has answered: the announcement's retries stop (its call stopped ringing)
      accept: (session) => this.decide(gone, () => this.accept(callId, dialog, session)),
      reject: (status) => this.decide(gone, () => this.reject(callId, dialog, status)),
      refer: (target) => this.refer(callId, dialog, target),
      hangup: () => this.hangUp(callId, dialog, 'hangup', 'hung up by the application'),
    });
    dialog.onFinished = () => {
      gone.abort();
      unregister?.();
    };
    dialog.lastResponse = this.responder.reply(dialog.invite, dialog.peer, 180, 'Ringing', [], true, dialog.localTag);
    if (!account.announce) {
      await this.accept(callId, dialog, account.session).catch((err: unknown) => {
        if (!(err instanceof ServiceError)) throw err;
      });
      return;
    }
    const ringTimeoutMs = this.options.ringTimeoutMs ?? DEFAULT_RING_TIMEOUT_MS;
    dialog.timers.push(
      unref(
        setTimeout(() => {
          if (dialog.state === 'proceeding' && !dialog.decided)
            this.fail(callId, dialog, 480, 'Temporarily Unavailable', `not accepted within ${ringTimeoutMs} ms`);
        }, ringTimeoutMs),
      ),
    );
    this.logger.info({ callId, call: dialog.publicId, from: dialog.peer.address }, 'SIP call ringing: waiting for accept or reject');
    const incoming: IncomingCall = { callId: dialog.publicId, principal, sipHeaders: sipHeadersOf(dialog.invite) };
    // (a throw counts as a failed announcement: either way nobody was told)
    void Promise.resolve()
      .then(() => account.announce!(incoming, gone.signal))
      .catch((err: unknown) => this.notAnnounced(callId, dialog, err));
  }

  /** Runs the application's answer to a ringing call, then ends its announcement (nothing more to tell). */
  private decide<T>(announcement: AbortController, answer: () => T): T {
    try {
      return answer();
    } finally {
      announcement.abort();
    }
  }

  /**
   * Nobody could be told of a ringing call (every webhook delivery failed, or its address was
   * refused), so nobody can accept it: the caller is refused now rather than ringing until the ring
   * timeout, with the ring timeout's 480 (the callee, the application, is unavailable; a 5xx would
   * have a proxy or trunk retry another server, which reaches the same application). A call the
   * application answered meanwhile (it took a delivery the sender counted as failed) is left alone.
   */
  private notAnnounced(callId: string, dialog: Dialog, err: unknown): void {
    if (dialog.state !== 'proceeding' || dialog.decided) return;
    this.logger.warn({ callId, call: dialog.publicId, reason: String(err) }, 'SIP call refused: the application could not be told of it');
    this.fail(callId, dialog, 480, 'Temporarily Unavailable', 'the application could not be told of the call: its webhook failed');
  }

  /** Refuses a ringing call with the application's status (OpenAI's reject: 603 Decline by default). */
  private reject(callId: string, dialog: Dialog, status: number): void {
    if (dialog.state !== 'proceeding' || dialog.decided) throw new RealtimeCallNotRingingError(dialog.publicId);
    dialog.decided = true;
    this.fail(callId, dialog, status, statusPhrase(status), 'rejected by the application');
  }

  /** Admits the call, opens its media, starts its session with `session`, and answers 200 with the SDP. */
  private async accept(callId: string, dialog: Dialog, session: Record<string, unknown>): Promise<void> {
    if (dialog.state !== 'proceeding' || dialog.decided) throw new RealtimeCallNotRingingError(dialog.publicId);
    dialog.decided = true;
    const principal = dialog.principal!;
    const outcome = await this.deps.admission.admit({ principal, secretSessionId: null });
    if ((dialog.state as Dialog['state']) === 'ended') {
      if (outcome.admitted) outcome.session.end('cancelled');
      throw new RealtimeCallNotRingingError(dialog.publicId);
    }
    if (!outcome.admitted) {
      const reason =
        outcome.reason ??
        (outcome.refusal === 'dependency_unavailable' ? 'admission could not be decided; retry later' : 'the server is at capacity');
      this.logger.info({ callId, refusal: outcome.refusal, reason }, 'SIP call refused at admission');
      // as the WebSocket's and the WebRTC call's 429: a caller's phone or PBX may try again in 5 s
      this.fail(callId, dialog, 503, 'Service Unavailable', reason, [['Retry-After', '5']]);
      throw outcome.refusal === 'dependency_unavailable'
        ? new ServiceUnavailableError('session registry')
        : new RealtimeCapacityError(reason);
    }
    dialog.admitted = outcome.session;
    const call = new SipCall(dialog.publicId, dialog.offer, new Set([dialog.peer.address, dialog.offer.address]), {
      audioLeadMs: this.options.audioLeadMs,
      mediaTimeoutMs: this.options.mediaTimeoutMs,
      logger: this.logger,
      opus: this.deps.opus ?? null,
    });
    dialog.call = call;
    const port = await call.rtp.open(this.transport.local.address);
    dialog.localAddress = await this.localAddress(dialog.peer);
    if ((dialog.state as Dialog['state']) === 'ended') {
      call.end('cancelled', 'cancelled while answering');
      throw new RealtimeCallNotRingingError(dialog.publicId);
    }
    outcome.session.onRevoked(() => this.hangUp(callId, dialog, 'key_revoked', 'the API key of this call was revoked'));
    const answeredAt = performance.now();
    call.onEnded((ending, reason) => {
      dialog.admitted?.end(ending);
      // the media's counts say what the signalling cannot: one-way audio, a caller never heard, RTP from elsewhere
      const { packetsReceived, packetsSent, packetsUndecodable, packetsFromStrangers, lastStranger } = call.rtp;
      const rtp = { received: packetsReceived, sent: packetsSent, undecodable: packetsUndecodable, fromStrangers: packetsFromStrangers };
      const seconds = Math.round((performance.now() - answeredAt) / 100) / 10;
      this.logger.info({ callId, call: call.id, ending, reason, seconds, rtp }, 'SIP call ended');
      if (packetsFromStrangers > 0)
        this.logger.warn(
          {
            callId,
            call: call.id,
            from: lastStranger,
            packets: packetsFromStrangers,
            trusted: [dialog.peer.address, dialog.offer.address],
          },
          "SIP call: RTP came from an address that is neither the caller's SIP source nor its SDP's, and was dropped",
        );
      if (dialog.state !== 'ended') this.hangUp(callId, dialog, ending, reason);
    });
    const engine = this.deps.createSession({ principal, output: call, media: call.media });
    call.start(engine);
    void engine.handle({ type: 'session.update', session: { ...session, type: 'realtime' } });
    dialog.mediaPort = port;
    dialog.sdpSessionId = Date.now() % 1e9;
    dialog.answerSdp = buildAudioAnswer(dialog.offer, { address: this.advertised(dialog), port, sessionId: dialog.sdpSessionId });
    dialog.state = 'answered';
    dialog.lastResponse = this.okWithSdp(dialog);
    this.resendUntilAck(callId, dialog);
    for (const listener of [...this.answeredListeners]) listener(call);
    this.logger.info({ callId, call: call.id, from: dialog.peer.address, codec: dialog.offer.codec }, 'SIP call answered');
  }

  /** Resends the 200 OK at T1, 2 T1, ... T2 until the ACK; without one by ackTimeoutMs the call ends with BYE. */
  private resendUntilAck(callId: string, dialog: Dialog): void {
    let interval = T1_MS;
    const resend = () => {
      if (dialog.state !== 'answered') return;
      this.transport.send(dialog.lastResponse!, dialog.peer);
      interval = Math.min(interval * 2, T2_MS);
      dialog.timers.push(unref(setTimeout(resend, interval)));
    };
    dialog.timers.push(unref(setTimeout(resend, interval)));
    dialog.timers.push(
      unref(
        setTimeout(() => {
          if (dialog.state === 'answered') this.hangUp(callId, dialog, 'no_ack', `no ACK within ${this.options.ackTimeoutMs} ms`);
        }, this.options.ackTimeoutMs),
      ),
    );
  }

  private onAck(ack: SipRequest): void {
    const dialog = this.dialogs.get(ack.headers.get('call-id')!);
    if (dialog?.state === 'answered') dialog.state = 'confirmed';
  }

  /** A re-INVITE in the dialog (hold, resume, a moved endpoint): the media follows, the same answer comes back. */
  private onReInvite(dialog: Dialog, invite: SipRequest, peer: Peer): void {
    if (!dialog.call || dialog.state === 'ended') return void this.responder.reply(invite, peer, 481, 'Call/Transaction Does Not Exist');
    // Offerless (a session refresh, RFC 4028): the 200 carries this side's SDP as the offer (RFC 3261
    // 14.2), unchanged, so its version stays; the caller's answer in the ACK changes nothing used here.
    if (invite.body === '') return void this.answerReInvite(dialog, invite, peer);
    let offer: AudioOffer;
    try {
      // read as the first offer was (an Opus call's re-INVITE offers Opus again), and only the call's
      // codec may be chosen: an answer naming a codec the re-offer left out is one the caller cannot use
      offer = parseAudioOffer(invite.body, { opus: !!this.deps.opus, codec: dialog.call.rtp.codec });
    } catch (err) {
      if (!(err instanceof SdpError)) throw err;
      // as a first offer's refusal: the caller reads the reason in a Warning, the operator in the log
      this.logger.info(
        { callId: invite.headers.get('call-id'), call: dialog.publicId, from: peer.address, status: 488, reason: err.message },
        'SIP re-INVITE refused: its SDP offer; the call goes on as it was',
      );
      return void this.responder.reply(invite, peer, 488, 'Not Acceptable Here', [
        ['Warning', `399 ${SERVER_NAME} "${err.message.replace(/"/g, "'")}"`],
      ]);
    }
    dialog.call.rtp.update(offer);
    dialog.sdpVersion++;
    dialog.answerSdp = buildAudioAnswer(dialog.call.rtp.negotiated, {
      address: this.advertised(dialog),
      port: dialog.mediaPort,
      sessionId: dialog.sdpSessionId,
      version: dialog.sdpVersion,
    });
    this.answerReInvite(dialog, invite, peer);
  }

  /** 200 to a re-INVITE, with the call's SDP as it stands. */
  private answerReInvite(dialog: Dialog, invite: SipRequest, peer: Peer): void {
    this.responder.reply(
      invite,
      peer,
      200,
      'OK',
      [
        ['Contact', this.contact(dialog)],
        ['Content-Type', 'application/sdp'],
      ],
      true,
      dialog.localTag,
      dialog.answerSdp,
    );
  }

  /**
   * CANCEL (RFC 3261 9.2). Of an INVITE not yet answered: 200, and 487 ends the call attempt. Of an
   * INVITE that already got its final response (the 200 that answered the call crossed the CANCEL,
   * or a refusal did): 200 all the same, and nothing changes (the call goes on; the caller who still
   * wants out sends BYE). 481 only for a CANCEL that matches no INVITE.
   */
  private onCancel(cancel: SipRequest, peer: Peer): void {
    const callId = cancel.headers.get('call-id')!;
    const dialog = this.dialogs.get(callId);
    if (dialog && cancelsInvite(cancel, dialog.invite)) {
      this.responder.reply(cancel, peer, 200, 'OK', [], true, dialog.localTag);
      if (dialog.state === 'proceeding') return this.fail(callId, dialog, 487, 'Request Terminated', 'cancelled by the caller');
      this.logger.debug({ callId, call: dialog.publicId }, 'SIP CANCEL after the call was answered: nothing to cancel, the call goes on');
      return;
    }
    const refusedTag = this.responder.refusedInviteOf(cancel);
    if (refusedTag !== undefined) return void this.responder.reply(cancel, peer, 200, 'OK', [], true, refusedTag);
    this.responder.reply(cancel, peer, 481, 'Call/Transaction Does Not Exist');
  }

  /** The answered call a request inside a dialog (BYE, NOTIFY) belongs to, tags and all; none: 481 is answered. */
  private answeredDialog(request: SipRequest, peer: Peer): Dialog | null {
    const dialog = this.dialogs.get(request.headers.get('call-id')!);
    // the dialog is the Call-ID and both tags (RFC 3261 12.2.2): the Call-ID alone would let any
    // allowed source that learned it end the call, or report its transfer done
    const ours = headerParam(request.headers.get('to'), 'tag') === dialog?.localTag;
    const theirs = headerParam(request.headers.get('from'), 'tag') === headerParam(dialog?.invite.headers.get('from'), 'tag');
    if (dialog && ours && theirs && dialog.state !== 'ended' && dialog.state !== 'proceeding') return dialog;
    this.responder.reply(request, peer, 481, 'Call/Transaction Does Not Exist');
    return null;
  }

  private onBye(bye: SipRequest, peer: Peer): void {
    const callId = bye.headers.get('call-id')!;
    const dialog = this.answeredDialog(bye, peer);
    if (!dialog) return;
    this.responder.reply(bye, peer, 200, 'OK', [], true, dialog.localTag);
    this.finish(callId, dialog);
    dialog.call?.end('hangup', 'the caller hung up');
  }

  /**
   * Sends REFER (RFC 3515) to the caller: its phone or PBX calls `target` and reports how it went in
   * NOTIFYs. Resolves when the caller took the REFER (2xx); a refusal or no answer is thrown.
   */
  private async refer(callId: string, dialog: Dialog, target: string): Promise<void> {
    if (dialog.state !== 'answered' && dialog.state !== 'confirmed')
      throw new InvalidRequestError('The call is not answered yet: only an answered call can be transferred.', 'call_id');
    const { message, cseq } = inDialogRequest(dialog, 'REFER', this.viaAddress(dialog), referHeaders(target, this.contact(dialog)));
    const response = await this.outgoing.send(
      callId,
      cseq,
      'REFER',
      () => this.transport.send(message, dialog.peer),
      () => this.transport.open && dialog.state !== 'ended',
    );
    referOutcome(response);
    this.logger.info({ callId, call: dialog.publicId, status: response!.status }, 'SIP call transfer (REFER) taken by the caller');
  }

  /**
   * The NOTIFYs of a transfer (RFC 3515: `message/sipfrag` with the new call's status): a 2xx means
   * the caller is through to the target, so this side hangs up (RFC 5589's transferor); a failure
   * leaves the call as it was.
   */
  private onNotify(notify: SipRequest, peer: Peer): void {
    const callId = notify.headers.get('call-id')!;
    const dialog = this.answeredDialog(notify, peer);
    if (!dialog) return;
    this.responder.reply(notify, peer, 200, 'OK', [], true, dialog.localTag);
    if (transferConnected(notify)) this.hangUp(callId, dialog, 'transferred', 'transferred (REFER)');
  }

  /** Ends a call from this side: BYE when it was answered (resent until answered, a few times), 487/503 before. */
  private hangUp(callId: string, dialog: Dialog, ending: SipCallEnding, reason: string): void {
    if (dialog.state === 'ended') return;
    if (dialog.state === 'proceeding')
      return this.fail(
        callId,
        dialog,
        ending === 'server_shutdown' ? 503 : 487,
        ending === 'server_shutdown' ? 'Service Unavailable' : 'Request Terminated',
        reason,
      );
    this.finish(callId, dialog);
    dialog.call?.end(ending, reason);
    const { message, cseq } = inDialogRequest(dialog, 'BYE', this.viaAddress(dialog));
    void this.outgoing.send(
      callId,
      cseq,
      'BYE',
      () => this.transport.send(message, dialog.peer),
      () => this.transport.open,
    );
  }

  /** Refuses a call being answered with a final non-2xx response, and frees whatever it held. */
  private fail(
    callId: string,
    dialog: Dialog,
    status: number,
    reasonPhrase: string,
    reason: string,
    headers: Array<[string, string]> = [],
  ): void {
    if (dialog.state === 'ended') return;
    this.finish(callId, dialog);
    this.responder.refuse(dialog.invite, dialog.peer, status, reasonPhrase, reason, headers, dialog.localTag);
    if (dialog.call) dialog.call.end('cancelled', reason);
    else dialog.admitted?.end('cancelled');
  }

  /** The dialog is over: timers stop, it leaves the table (and the directory). */
  private finish(callId: string, dialog: Dialog): void {
    dialog.state = 'ended';
    for (const t of dialog.timers) clearTimeout(t);
    dialog.timers = [];
    this.dialogs.delete(callId);
    dialog.onFinished?.();
  }

  private okWithSdp(dialog: Dialog): Buffer {
    return this.responder.reply(
      dialog.invite,
      dialog.peer,
      200,
      'OK',
      [
        ['Contact', this.contact(dialog)],
        ['Allow', ALLOW],
        ['Content-Type', 'application/sdp'],
      ],
      true,
      dialog.localTag,
      dialog.answerSdp,
    );
  }

  private viaAddress(dialog: Dialog): { address: string; port: number } {
    return { address: this.advertised(dialog), port: this.transport.local.port };
  }

  private contact(dialog: Dialog): string {
    const transport = dialog.peer.transport === 'TCP' ? ';transport=tcp' : '';
    return `<sip:svc@${hostPort(this.advertised(dialog), this.transport.local.port)}${transport}>`;
  }

  /**
   * The address put in SDP and Contact: the configured one, the bound one, or (bound to any, none
   * configured) the one the caller reached, found when the call is answered.
   */
  private advertised(dialog: Dialog): string {
    return this.options.advertisedAddress || dialog.localAddress || this.transport.local.address;
  }

  /**
   * Bound to every interface with no advertised address: the address the caller reached (a TCP
   * connection's own end; over UDP, which does not say, the address this host routes to the caller
   * from), else loopback. Null when another rule names it (configured or bound).
   */
  private async localAddress(peer: Peer): Promise<string | null> {
    const bound = this.transport.local.address;
    if (this.options.advertisedAddress || (bound !== '0.0.0.0' && bound !== '::')) return null;
    const reached = peer.stream?.localAddress?.replace(/^::ffff:(?=\d+\.)/, '') ?? (await localAddressToward(peer.address));
    return reached ?? (isIP(peer.address) === 6 ? '::1' : '127.0.0.1');
  }
}

function unref<T extends ReturnType<typeof setTimeout>>(timer: T): T {
  timer.unref?.();
  return timer;
}
