import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { BlockList, createServer, isIP, type Server, type Socket as TcpSocket } from 'node:net';
import { randomBytes } from 'node:crypto';
import {
  silentLogger,
  type Logger,
  type Principal,
  type RateLimiter,
  type RealtimeAdmission,
  type RealtimeOutput,
  type SessionMedia,
  type AdmittedSession,
  type OpusCodec,
} from '@svc/core';
import { DigestAuth, type DigestCredentials } from './digest-auth.js';
import {
  cseqOf,
  headerParam,
  parseSipMessage,
  serializeSip,
  SipParseError,
  type SipParseLimits,
  type SipRequest,
  type SipResponse,
  DEFAULT_PARSE_LIMITS,
} from './sip-message.js';
import { buildAudioAnswer, parseAudioOffer, SdpError, type AudioOffer } from './sdp.js';
import { SipCall, type SipCallEnding, type SipCallSession } from './sip-call.js';
import { SipStreamFramer } from './sip-stream-framer.js';

export interface SipServerDeps {
  /** The same admission (capacity, fairness, caps, revocation) as the WebSocket and WebRTC sessions. */
  admission: RealtimeAdmission;
  /** The API key calls act as, looked up per call (null: revoked, the call is refused with 403). */
  principal(): Promise<Principal | null>;
  /** Starts the realtime session of a call (the engine factory of the other transports). */
  createSession(context: { principal: Principal; output: RealtimeOutput; media: SessionMedia }): SipCallSession;
  /** The session configuration every call starts with (session.update's `session`). */
  session: Record<string, unknown>;
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
  limits?: SipParseLimits;
  /** The address put in SDP and Contact when bound to every interface (0.0.0.0): the one callers reach. */
  advertisedAddress?: string;
}

/** RFC 3261's T1 and T2: the 200 OK is resent at T1, doubling up to T2, until the ACK comes. */
const T1_MS = 500;
const T2_MS = 4000;
/** Final responses remembered to answer retransmitted requests (bounded: a flood cannot grow it). */
const MAX_REMEMBERED = 1024;
const REMEMBER_MS = 32_000;
const ALLOW = 'INVITE, ACK, BYE, CANCEL, OPTIONS';
const SERVER_NAME = 'svc-realtime';
/** TCP connections at once (each holds a buffer of up to one message). */
const MAX_TCP_CONNECTIONS = 256;
/** A TCP connection with no call and nothing sent for this long is closed (a PBX's keep-alives are OPTIONS every 30-60 s). */
const TCP_IDLE_MS = 5 * 60 * 1000;

/** Where a request came from and its answers go: a UDP address, or the TCP connection it came on. */
interface Peer {
  address: string;
  port: number;
  transport: 'UDP' | 'TCP';
  stream?: TcpSocket;
}

interface Dialog {
  call: SipCall | null;
  admitted: AdmittedSession | null;
  /** The caller, where every response and our BYE go. */
  peer: Peer;
  invite: SipRequest;
  localTag: string;
  /** The last response to the INVITE (resent on a retransmitted INVITE). */
  lastResponse: Buffer | null;
  state: 'proceeding' | 'answered' | 'confirmed' | 'ended';
  timers: Array<ReturnType<typeof setTimeout>>;
  localCseq: number;
  answerSdp: string;
  sdpVersion: number;
  offer: AudioOffer | null;
}

/**
 * A SIP user agent server over UDP and TCP (RFC 3261) that answers phone calls with realtime sessions:
 * OPTIONS, INVITE (100, 180, 200 with an SDP answer; 401 digest challenge, 403, 488, 503 at
 * capacity), ACK, CANCEL, BYE both ways, re-INVITE (hold). It never relays, proxies or registers:
 * every response goes back to the address the request came from, and requests for other methods
 * get 405. Malformed datagrams are dropped (logged at debug), never thrown.
 */
export class SipServer {
  private socket: Socket | null = null;
  private tcp: Server | null = null;
  private readonly dialogs = new Map<string, Dialog>();
  private readonly remembered = new Map<string, { response: Buffer; at: number }>();
  private readonly allowed = new BlockList();
  private readonly digest: DigestAuth | null;
  private readonly logger: Logger;
  private readonly limits: SipParseLimits;
  private closed = false;
  private local = { address: '127.0.0.1', port: 0 };

  constructor(
    private readonly deps: SipServerDeps,
    private readonly options: SipServerOptions,
  ) {
    this.logger = deps.logger ?? silentLogger;
    this.limits = options.limits ?? DEFAULT_PARSE_LIMITS;
    this.digest = options.credentials ? new DigestAuth(options.credentials) : null;
    for (const entry of options.allowedSources) addSource(this.allowed, entry);
  }

  /**
   * Binds UDP and TCP on one port. With port 0 the UDP port is any free one, and its number may be
   * taken for TCP by another program: then both are tried again on another number.
   */
  static async listen(deps: SipServerDeps, options: SipServerOptions): Promise<SipServer> {
    for (let attempt = 1; ; attempt++) {
      const server = new SipServer(deps, options);
      try {
        await server.open();
        return server;
      } catch (err) {
        await server.close();
        const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
        if (options.port !== 0 || !taken || attempt >= 5) throw err;
      }
    }
  }

  get address(): { address: string; port: number } {
    return this.local;
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
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
    const tcp = this.tcp;
    this.tcp = null;
    if (tcp) {
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      for (const connection of this.connections) connection.destroy();
      await closed;
    }
  }

  private async open(): Promise<void> {
    const socket = createSocket({ type: isIP(this.options.host) === 6 ? 'udp6' : 'udp4' });
    this.socket = socket;
    socket.on('message', (data, rinfo: RemoteInfo) => this.onMessage(data, { address: rinfo.address, port: rinfo.port, transport: 'UDP' }));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(this.options.port, this.options.host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    socket.on('error', (err) => this.logger.warn({ err: String(err) }, 'SIP socket error'));
    const { address, port } = socket.address();
    this.local = { address, port };
    await this.openTcp();
  }

  private readonly connections = new Set<TcpSocket>();

  /** The same port over TCP: each connection framed by Content-Length, answers on the connection. */
  private async openTcp(): Promise<void> {
    const tcp = createServer((connection) => this.onConnection(connection));
    tcp.maxConnections = MAX_TCP_CONNECTIONS;
    this.tcp = tcp;
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(this.local.port, this.options.host, () => {
        tcp.off('error', reject);
        resolve();
      });
    });
    tcp.on('error', (err) => this.logger.warn({ err: String(err) }, 'SIP TCP server error'));
  }

  private onConnection(connection: TcpSocket): void {
    const address = connection.remoteAddress ?? '';
    if (!this.allowed.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')) {
      this.logger.info({ from: address }, 'SIP connection refused: source address not allowed (SVC_SIP_ALLOWED_SOURCES)');
      connection.destroy();
      return;
    }
    this.connections.add(connection);
    const framer = new SipStreamFramer(this.limits.maxMessageBytes);
    const peer: Peer = { address, port: connection.remotePort ?? 0, transport: 'TCP', stream: connection };
    connection.setTimeout(TCP_IDLE_MS, () => {
      if (![...this.dialogs.values()].some((d) => d.peer.stream === connection)) connection.destroy();
    });
    connection.on('data', (chunk: Buffer) => {
      let messages: Buffer[];
      try {
        messages = framer.push(chunk);
      } catch (err) {
        this.logger.debug({ from: address, reason: (err as Error).message }, 'closed a SIP connection that broke the framing');
        connection.destroy();
        return;
      }
      for (const message of messages) this.onMessage(message, peer);
    });
    connection.on('error', () => undefined);
    connection.on('close', () => this.connections.delete(connection));
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
    if (message.kind === 'response') return this.onResponse(message);
    if (!this.allowed.check(peer.address, isIP(peer.address) === 6 ? 'ipv6' : 'ipv4')) {
      if (message.method !== 'ACK') this.reply(message, peer, 403, 'Forbidden');
      this.logger.info(
        { from: peer.address, method: message.method },
        'SIP request refused: source address not allowed (SVC_SIP_ALLOWED_SOURCES)',
      );
      return;
    }
    switch (message.method) {
      case 'OPTIONS':
        return void this.reply(message, peer, 200, 'OK', [
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
      case 'REGISTER':
        // not a registrar: nothing registers here, and this server registers nowhere
        return void this.reply(message, peer, 405, 'Method Not Allowed', [['Allow', ALLOW]]);
      default:
        return void this.reply(message, peer, 405, 'Method Not Allowed', [['Allow', ALLOW]]);
    }
  }

  private async onInvite(invite: SipRequest, peer: Peer): Promise<void> {
    const callId = invite.headers.get('call-id')!;
    const existing = this.dialogs.get(callId);
    const toTag = headerParam(invite.headers.get('to'), 'tag');
    if (existing && toTag && toTag === existing.localTag) return this.onReInvite(existing, invite, peer);
    if (existing) {
      // a retransmission: the last answer again
      if (existing.lastResponse) this.send(existing.lastResponse, existing.peer);
      return;
    }
    if (toTag) return void this.reply(invite, peer, 481, 'Call/Transaction Does Not Exist');
    const remembered = this.remembered.get(transactionKey(invite));
    if (remembered) return void this.send(remembered.response, peer);
    if (this.closed) return this.refuse(invite, peer, 503, 'Service Unavailable', 'the server is shutting down');
    const rate = await this.deps.rateLimiter.take(`sip:${peer.address}`);
    if (!rate.allowed) {
      this.logger.info({ from: peer.address }, 'SIP INVITE refused: too many from this address');
      return this.refuse(invite, peer, 503, 'Service Unavailable', 'too many calls from this address', [
        ['Retry-After', String(Math.max(1, Math.ceil(rate.retryAfterSeconds)))],
      ]);
    }
    if (this.digest && !this.digest.verify(invite.headers.get('authorization'), 'INVITE')) {
      return this.refuse(invite, peer, 401, 'Unauthorized', 'digest credentials required', [['WWW-Authenticate', this.digest.challenge()]]);
    }
    let offer: AudioOffer;
    try {
      if (!/application\/sdp/i.test(invite.headers.get('content-type') ?? '') || invite.body === '')
        throw new SdpError('the INVITE has no SDP offer (offerless INVITEs are not supported)', 488);
      offer = parseAudioOffer(invite.body, { opus: !!this.deps.opus });
    } catch (err) {
      if (!(err instanceof SdpError)) throw err;
      return this.refuse(invite, peer, err.status, err.status === 488 ? 'Not Acceptable Here' : 'Bad Request', err.message);
    }
    const dialog: Dialog = {
      call: null,
      admitted: null,
      peer,
      invite,
      localTag: randomBytes(8).toString('hex'),
      lastResponse: null,
      state: 'proceeding',
      timers: [],
      localCseq: 1,
      answerSdp: '',
      sdpVersion: 1,
      offer,
    };
    this.dialogs.set(callId, dialog);
    dialog.lastResponse = this.reply(invite, peer, 100, 'Trying', [], false);
    try {
      await this.answer(callId, dialog, offer);
    } catch (err) {
      this.logger.error({ err: String(err), callId }, 'could not answer a SIP call');
      this.fail(callId, dialog, 500, 'Server Internal Error', 'internal error');
    }
  }

  /** Admits the call, opens its media, starts its session, and answers 180 then 200 with the SDP. */
  private async answer(callId: string, dialog: Dialog, offer: AudioOffer): Promise<void> {
    const principal = await this.deps.principal();
    if (!principal) return this.fail(callId, dialog, 403, 'Forbidden', 'the API key this port acts as is revoked');
    const outcome = await this.deps.admission.admit({ principal, secretSessionId: null });
    if (dialog.state === 'ended') {
      if (outcome.admitted) outcome.session.end('cancelled');
      return;
    }
    if (!outcome.admitted) {
      const reason =
        outcome.reason ??
        (outcome.refusal === 'dependency_unavailable' ? 'admission could not be decided; retry later' : 'the server is at capacity');
      this.logger.info({ callId, refusal: outcome.refusal, reason }, 'SIP call refused at admission');
      return this.fail(callId, dialog, 503, 'Service Unavailable', reason);
    }
    dialog.admitted = outcome.session;
    const call = new SipCall(this.deps.newCallId(), offer, new Set([dialog.peer.address, offer.address]), {
      audioLeadMs: this.options.audioLeadMs,
      mediaTimeoutMs: this.options.mediaTimeoutMs,
      logger: this.logger,
      opus: this.deps.opus ?? null,
    });
    dialog.call = call;
    const port = await call.rtp.open(this.local.address);
    if ((dialog.state as Dialog['state']) === 'ended') return call.end('cancelled', 'cancelled while answering');
    outcome.session.onRevoked(() => this.hangUp(callId, dialog, 'key_revoked', 'the API key of this call was revoked'));
    call.onEnded((ending, reason) => {
      dialog.admitted?.end(ending);
      this.logger.info({ callId, sipCallId: call.id, ending, reason }, 'SIP call ended');
      if (dialog.state !== 'ended') this.hangUp(callId, dialog, ending, reason);
    });
    const session = this.deps.createSession({ principal, output: call, media: call.media });
    call.start(session);
    void session.handle({ type: 'session.update', session: { type: 'realtime', ...this.deps.session } });
    dialog.answerSdp = buildAudioAnswer(offer, { address: this.advertised(dialog), port, sessionId: Date.now() % 1e9 });
    this.reply(dialog.invite, dialog.peer, 180, 'Ringing', [], true, dialog.localTag);
    dialog.state = 'answered';
    dialog.lastResponse = this.okWithSdp(dialog);
    this.resendUntilAck(callId, dialog);
    for (const listener of [...this.answeredListeners]) listener(call);
    this.logger.info({ callId, sipCallId: call.id, from: dialog.peer.address, codec: offer.codec }, 'SIP call answered');
  }

  /** Resends the 200 OK at T1, 2 T1, ... T2 until the ACK; without one by ackTimeoutMs the call ends with BYE. */
  private resendUntilAck(callId: string, dialog: Dialog): void {
    let interval = T1_MS;
    const resend = () => {
      if (dialog.state !== 'answered') return;
      this.send(dialog.lastResponse!, dialog.peer);
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
    if (!dialog.call || dialog.state === 'ended') return void this.reply(invite, peer, 481, 'Call/Transaction Does Not Exist');
    let offer: AudioOffer;
    try {
      offer = parseAudioOffer(invite.body);
    } catch (err) {
      if (!(err instanceof SdpError)) throw err;
      return void this.reply(invite, peer, 488, 'Not Acceptable Here', [['Warning', `399 ${SERVER_NAME} "${err.message}"`]]);
    }
    dialog.call.rtp.update(offer);
    dialog.sdpVersion++;
    dialog.answerSdp = dialog.answerSdp
      .replace(/^o=svc (\d+) \d+/m, `o=svc $1 ${dialog.sdpVersion}`)
      .replace(
        /^a=(sendrecv|sendonly|recvonly|inactive)$/m,
        `a=${{ sendrecv: 'sendrecv', sendonly: 'recvonly', recvonly: 'sendonly', inactive: 'inactive' }[offer.direction]}`,
      );
    this.reply(
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

  private onCancel(cancel: SipRequest, peer: Peer): void {
    const callId = cancel.headers.get('call-id')!;
    const dialog = this.dialogs.get(callId);
    if (!dialog || dialog.state !== 'proceeding') return void this.reply(cancel, peer, 481, 'Call/Transaction Does Not Exist');
    this.reply(cancel, peer, 200, 'OK');
    this.fail(callId, dialog, 487, 'Request Terminated', 'cancelled by the caller');
  }

  private onBye(bye: SipRequest, peer: Peer): void {
    const callId = bye.headers.get('call-id')!;
    const dialog = this.dialogs.get(callId);
    if (!dialog || dialog.state === 'ended' || dialog.state === 'proceeding')
      return void this.reply(bye, peer, 481, 'Call/Transaction Does Not Exist');
    this.reply(bye, peer, 200, 'OK', [], true, dialog.localTag);
    this.finish(callId, dialog);
    dialog.call?.end('hangup', 'the caller hung up');
  }

  private onResponse(response: SipResponse): void {
    // Our BYEs' answers: any final one ends their retransmission (the dialog is already gone).
    const { method } = cseqOf(response);
    if (method === 'BYE' && response.status >= 200) this.byeAnswered.add(response.headers.get('call-id')!);
  }

  private readonly byeAnswered = new Set<string>();

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
    this.sendBye(callId, dialog);
  }

  private sendBye(callId: string, dialog: Dialog): void {
    const invite = dialog.invite;
    const target = /<([^>]+)>/.exec(invite.headers.get('contact') ?? '')?.[1] ?? invite.headers.get('contact') ?? invite.uri;
    const bye = serializeSip(`BYE ${target.trim()} SIP/2.0`, [
      [
        'Via',
        `SIP/2.0/${dialog.peer.transport} ${hostPort(this.advertised(dialog), this.local.port)};branch=z9hG4bK${randomBytes(8).toString('hex')};rport`,
      ],
      ['Max-Forwards', '70'],
      ['From', withTag(invite.headers.get('to')!, dialog.localTag)],
      ['To', invite.headers.get('from')!],
      ['Call-ID', callId],
      ['CSeq', `${++dialog.localCseq} BYE`],
      // a proxy in the path (its Record-Route in the INVITE) stays in it: the route set, in order (RFC 3261 12.1.1)
      ...invite.headers.all('record-route').map((route): [string, string] => ['Route', route]),
      ['User-Agent', SERVER_NAME],
    ]);
    this.byeAnswered.delete(callId);
    let tries = 0;
    const attempt = () => {
      if (this.byeAnswered.has(callId) || tries++ >= 4 || !this.socket) return this.byeAnswered.delete(callId);
      this.send(bye, dialog.peer);
      unref(setTimeout(attempt, T1_MS * 2 ** (tries - 1)));
    };
    attempt();
  }

  /** Refuses a call being answered with a final non-2xx response, and frees whatever it held. */
  private fail(callId: string, dialog: Dialog, status: number, reasonPhrase: string, reason: string): void {
    if (dialog.state === 'ended') return;
    this.finish(callId, dialog);
    this.refuse(dialog.invite, dialog.peer, status, reasonPhrase, reason, [], dialog.localTag);
    if (dialog.call) dialog.call.end('cancelled', reason);
    else dialog.admitted?.end('cancelled');
  }

  /** The dialog is over: timers stop, it leaves the table. */
  private finish(callId: string, dialog: Dialog): void {
    dialog.state = 'ended';
    for (const t of dialog.timers) clearTimeout(t);
    dialog.timers = [];
    this.dialogs.delete(callId);
  }

  /** A final refusal, with the reason in a Warning header, remembered for the retransmitted INVITE. */
  private refuse(
    invite: SipRequest,
    peer: Peer,
    status: number,
    phrase: string,
    reason: string,
    extra: Array<[string, string]> = [],
    tag?: string,
  ): void {
    const response = this.reply(
      invite,
      peer,
      status,
      phrase,
      [...extra, ['Warning', `399 ${SERVER_NAME} "${reason.replace(/"/g, "'")}"`]],
      true,
      tag ?? randomBytes(8).toString('hex'),
    );
    this.remember(transactionKey(invite), response);
  }

  private okWithSdp(dialog: Dialog): Buffer {
    return this.reply(
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

  /** Answers a request: its Via, From, Call-ID and CSeq copied, To tagged (RFC 3261 section 8.2.6). */
  private reply(
    request: SipRequest,
    peer: Peer,
    status: number,
    phrase: string,
    extra: Array<[string, string]> = [],
    tagTo = true,
    tag?: string,
    body = '',
  ): Buffer {
    const to = request.headers.get('to')!;
    const headers: Array<[string, string]> = [
      ...request.headers.all('via').map((v, i): [string, string] => ['Via', i === 0 ? withReceived(v, peer) : v]),
      ['From', request.headers.get('from')!],
      ['To', tagTo && !headerParam(to, 'tag') ? withTag(to, tag ?? randomBytes(8).toString('hex')) : to],
      ['Call-ID', request.headers.get('call-id')!],
      ['CSeq', request.headers.get('cseq')!],
      // the proxies that asked to stay in the dialog learn it was set up through them (RFC 3261 12.1.1)
      ...(request.method === 'INVITE' && status > 100 && status < 300
        ? request.headers.all('record-route').map((route): [string, string] => ['Record-Route', route])
        : []),
      ['Server', SERVER_NAME],
      ...extra,
    ];
    const message = serializeSip(`SIP/2.0 ${status} ${phrase}`, headers, body);
    this.send(message, peer);
    return message;
  }

  private remember(key: string, response: Buffer): void {
    const now = performance.now();
    for (const [k, v] of this.remembered) {
      if (now - v.at < REMEMBER_MS && this.remembered.size < MAX_REMEMBERED) break;
      this.remembered.delete(k);
    }
    this.remembered.set(key, { response, at: now });
  }

  private send(message: Buffer, peer: Peer): void {
    if (peer.stream) {
      if (!peer.stream.destroyed) peer.stream.write(message);
      return;
    }
    this.socket?.send(message, peer.port, peer.address);
  }

  private contact(dialog?: Dialog): string {
    const transport = dialog?.peer.transport === 'TCP' ? ';transport=tcp' : '';
    return `<sip:svc@${hostPort(dialog ? this.advertised(dialog) : (this.options.advertisedAddress ?? this.local.address), this.local.port)}${transport}>`;
  }

  /** The address put in SDP and Contact: the configured one, the bound one, or (bound to any, none configured) loopback. */
  private advertised(dialog: Dialog): string {
    if (this.options.advertisedAddress) return this.options.advertisedAddress;
    return this.local.address === '0.0.0.0' || this.local.address === '::' ? loopbackFor(dialog.peer.address) : this.local.address;
  }
}

/** An INVITE transaction: Call-ID and CSeq (the branch alone is not required of RFC 2543 phones). */
function transactionKey(request: SipRequest): string {
  return `${request.headers.get('call-id')}|${request.headers.get('cseq')}`;
}

function withTag(header: string, tag: string): string {
  return `${header};tag=${tag}`;
}

/** The top Via with `received` and `rport` filled in (RFC 3261 18.2.1, RFC 3581): the response goes where the request came from. */
function withReceived(via: string, peer: Peer): string {
  return via.replace(/;rport(?=;|$)/, `;rport=${peer.port}`) + `;received=${peer.address}`;
}

function hostPort(address: string, port: number): string {
  return `${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/** Bound to every interface with no advertised address: only a local caller can be told where to send. */
function loopbackFor(peer: string): string {
  return isIP(peer) === 6 ? '::1' : '127.0.0.1';
}

function addSource(list: BlockList, entry: string): void {
  const [address, bits] = entry.trim().split('/');
  const family = isIP(address ?? '');
  if (!family) throw new Error(`'${entry}' is not an address or a CIDR range`);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (bits === undefined) list.addAddress(address!, type);
  else list.addSubnet(address!, Number(bits), type);
}

function unref<T extends ReturnType<typeof setTimeout>>(timer: T): T {
  timer.unref?.();
  return timer;
}
