import { randomBytes } from 'node:crypto';
import {
  InboundBudget,
  inboundBudgetError,
  type InboundBudgetLimits,
  type LiveVideoEncoder,
  type Logger,
  type OpusCodec,
  type OpusPacketDecoder,
  type RealtimeOutput,
  type RealtimeServerEvent,
  type SessionEnding,
  type SessionMedia,
  type SessionVideoOutput,
  parseCallerJson,
  serverEventJson,
} from '@svc/core';
import {
  PictureLossIndication,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtcpPayloadSpecificFeedback,
  type RTCDataChannel,
  type RTCRtpTransceiver,
  type RtcpPacket,
  type RtpPacket,
} from 'werift';
import { withoutRejectedFromBundle } from './answer-bundle.js';
import type { CallEnding } from './call-endings.js';
import { CallVideo } from './call-video.js';
import { iceGathered } from './ice-gathered.js';
import type { CallVideoStats } from './call-video-figures.js';
import { mediaClock } from './media-clock.js';
import { RtpAudioTrack, RTP_SAMPLE_RATE } from './rtp-audio-track.js';
import { RtpVideoTrack, VIDEO_CLOCK_RATE } from './rtp-video-track.js';

/** The data channel the client opens for the realtime events (OpenAI's name, which the SDKs use). */
export const EVENTS_CHANNEL = 'oai-events';

/** The session side of a call (RealtimeSessionEngine implements it). */
export interface CallSessionHandle {
  handle(event: unknown): Promise<void>;
  rejectFrame(message: string): void | Promise<void>;
  appendInputSamples(samples: Int16Array): Promise<void>;
  transportClosed(): void;
}

/** ICE settings of the server's side (it is ICE-lite: it answers the client's checks, never gathers through STUN/TURN). */
export interface CallIceOptions {
  /** UDP ports to bind, e.g. [50000, 50100] for a firewall rule. Default: any. */
  portRange?: [number, number];
  /** Extra host candidates to announce: a public address mapped 1:1 to this host, or 127.0.0.1. */
  additionalHostAddresses?: string[];
  /** Announce IPv6 host candidates too. */
  useIpv6?: boolean;
}

export interface PeerCallOptions {
  opus: OpusCodec;
  logger: Logger;
  ice: CallIceOptions;
  /** A call whose ICE has not connected by then is torn down. */
  connectTimeoutMs: number;
  /** A connected peer from which nothing (RTP, RTCP, data channel) arrived for this long is gone. */
  peerTimeoutMs: number;
  /** How far reply audio may be queued ahead of what RTP sent. */
  audioLeadMs: number;
  /** Outgoing event bytes queued on the data channel before the client is dropped as not reading. */
  maxBufferedBytes: number;
  /** Client events waiting for the engine before the call is dropped as flooding. */
  maxPendingEvents: number;
  /** The inbound budget of the data channel (the WebSocket's, per connection): over it, `error` and the end. */
  inbound: InboundBudgetLimits;
  /** Events queued before the data channel opens (the session's first events wait for it). */
  maxEventsBeforeOpen?: number;
  /**
   * The live avatar's video track, for offers that receive video: how frames are encoded and how
   * long before its time each is made. Without it a video m-line is answered inactive.
   */
  avatarVideo?: { encoder: LiveVideoEncoder; leadMs: number };
}

/** What a peer connection can refuse in an offer (the service answers 400 with this text). */
export class UnusableOfferError extends Error {}

const OPUS = () =>
  new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: RTP_SAMPLE_RATE, channels: 2, rtcpFeedback: [{ type: 'transport-cc' }] });
/**
 * H.264 constrained baseline 3.1 with packetization mode 1 (STAP-A, FU-A): what the live encoder
 * makes and every WebRTC browser decodes. Offered variants with another mode or profile are
 * dropped from the answer (see keepSendableH264).
 */
const H264 = () =>
  new RTCRtpCodecParameters({
    mimeType: 'video/H264',
    clockRate: VIDEO_CLOCK_RATE,
    rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }, { type: 'transport-cc' }],
    parameters: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
  });
/**
 * Video codecs the server never sends but recognises, so that an offer whose video m-line has no
 * H.264 (werift's own default is VP8 only; some SDKs and aiortc offer VP8 alone) can still be
 * negotiated and answered inactive: werift refuses the whole offer ("negotiate codecs failed") when
 * an m-line has no codec in common with ours. setUpVideo never sends on one of these.
 */
const VIDEO_CODECS_ANSWERED_INACTIVE = () =>
  ['video/VP8', 'video/VP9', 'video/AV1', 'video/H265'].map(
    (mimeType) => new RTCRtpCodecParameters({ mimeType, clockRate: VIDEO_CLOCK_RATE }),
  );
const LIVENESS_CHECK_MS = 1000;
/** Once the data channel has handed its last event to SCTP, how long it gets to arrive before the call closes. */
const CLOSE_GRACE_MS = 300;
/**
 * Longest wait for the data channel to hand its queued events to SCTP before the call closes anyway
 * (a client that does not read). On the loaded machine a flat 300 ms lost the last event (the flood
 * test's `error`) behind ~2 KB still queued.
 */
const MAX_DRAIN_MS = 2000;

/**
 * One WebRTC call: a werift peer connection (ICE-lite, so a browser's offer without candidates
 * connects through peer-reflexive candidates), the `oai-events` data channel carrying the JSON
 * events both ways, the caller's Opus track decoded to 48 kHz samples for the engine, and the
 * reply track (RtpAudioTrack). An offer that receives video gets an H.264 track (RtpVideoTrack)
 * in the same media stream as the reply audio (one msid, so the browser lip-syncs them), shown by
 * the session's avatar through `video` (CallVideo).
 */
export class PeerCall implements RealtimeOutput {
  readonly media: SessionMedia;
  private readonly pc: RTCPeerConnection;
  private audio: RTCRtpTransceiver | null = null;
  private channel: RTCDataChannel | null = null;
  private readonly replyTrack: RtpAudioTrack;
  private callVideo: CallVideo | null = null;
  private readonly early: string[] = [];
  private session: CallSessionHandle | null = null;
  private decoder: OpusPacketDecoder | null = null;
  private lastSequence = -1;
  private pending = 0;
  private lastHeardAt = performance.now();
  private readonly budget: InboundBudget;
  private connected = false;
  private closed = false;
  private closing = false;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];
  private readonly closedListeners: Array<(ending: CallEnding, reason: string) => void> = [];
  private answer = '';
  /** A session that ended before the client opened its data channel: closed once its last events are sent. */
  private pendingTeardown: { ending: SessionEnding | CallEnding; reason: string } | null = null;

  constructor(
    readonly id: string,
    private readonly options: PeerCallOptions,
  ) {
    const { ice } = options;
    this.pc = new RTCPeerConnection({
      codecs: { audio: [OPUS()], video: [H264(), ...VIDEO_CODECS_ANSWERED_INACTIVE()] },
      iceLite: true,
      // ICE-lite gathers host candidates only; no STUN server is ever asked (the default would be a public one).
      iceServers: [],
      iceUseIpv6: ice.useIpv6 ?? false,
      ...(ice.portRange ? { icePortRange: ice.portRange } : {}),
      ...(ice.additionalHostAddresses?.length ? { iceAdditionalHostAddresses: ice.additionalHostAddresses } : {}),
    });
    this.replyTrack = new RtpAudioTrack({ sendRtp: (packet: RtpPacket) => this.audio?.sender.sendRtp(packet) }, 111, {
      opus: options.opus,
      leadMs: options.audioLeadMs,
      now: () => mediaClock.now(),
    });
    this.media = { inputSampleRate: RTP_SAMPLE_RATE, replyTrack: this.replyTrack };
    this.budget = new InboundBudget(options.inbound, () => performance.now());
    // The caller's track appears while the offer is applied, before start(): listen from the outset.
    this.pc.onTrack.subscribe((track) => {
      if (track.kind === 'audio') track.onReceiveRtp.subscribe((rtp) => this.onRtp(rtp));
    });
  }

  get answerSdp(): string {
    return this.answer;
  }

  /** Per reply of this call, its first samples written -> its first RTP packet sent (ms; the webrtc bench reads it). */
  replyFirstPacketDelaysMs(): readonly number[] {
    return this.replyTrack.firstPacketDelaysMs;
  }

  /**
   * The media-clock moment (epoch ms, monotonic) an RTP timestamp this call sent stands for, per
   * track; null for a track it does not send. Receiver-side A/V measurements map back with it.
   */
  mediaTimeOf(kind: 'audio' | 'video', rtpTimestamp: number): number | null {
    if (kind === 'audio') return this.replyTrack.mediaTimeOf(rtpTimestamp);
    return this.callVideo?.mediaTimeOf(rtpTimestamp) ?? null;
  }

  /** What the call's avatar video did so far (frames sent, skipped, late; each reply's first frame); null without video. */
  videoStats(): CallVideoStats | null {
    return this.callVideo?.stats() ?? null;
  }

  /** Where the session shows its avatar: set when the offer receives video and the server has the live avatar. */
  get video(): SessionVideoOutput | undefined {
    return this.callVideo ?? undefined;
  }

  /** Applies the client's offer and makes the complete answer (all host candidates in it). */
  async negotiate(offerSdp: string): Promise<void> {
    try {
      await this.pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
    } catch (err) {
      throw new UnusableOfferError(`The SDP offer could not be applied: ${(err as Error).message}`);
    }
    this.audio = this.pc.getTransceivers().find((t) => t.kind === 'audio') ?? null;
    if (!this.audio) throw new UnusableOfferError('The SDP offer has no audio m-line (the microphone track).');
    this.audio.setDirection('sendrecv');
    this.setUpVideo();
    const answer = await this.pc.createAnswer();
    // The server takes the DTLS server role (setup:passive): a browser's ClientHello retransmitted
    // under load is handled cleanly, where werift as DTLS client fails on a retransmitted
    // HelloVerifyRequest (seen under load: calls failed often).
    // A refused video m-line (port 0) leaves the BUNDLE group (see withoutRejectedFromBundle).
    await this.pc.setLocalDescription({
      type: 'answer',
      sdp: withoutRejectedFromBundle(answer.sdp.replace(/^a=setup:active$/gm, 'a=setup:passive')),
    });
    await iceGathered(this.pc);
    this.answer = this.pc.localDescription!.sdp;
  }

  /**
   * Starts the call: events flow on the data channel once the client opens it (anything the
   * session says before waits), audio flows both ways, and the watchdogs run.
   */
  start(session: CallSessionHandle): void {
    this.session = session;
    this.decoder = this.options.opus.createDecoder(20);
    this.pc.onDataChannel.subscribe((channel) => this.onChannel(channel));
    this.audio!.receiver.onRtcp.subscribe(() => (this.lastHeardAt = performance.now()));
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') {
        this.connected = true;
        this.lastHeardAt = performance.now();
        this.callVideo?.onConnected();
      } else if (state === 'failed' || state === 'closed') {
        this.close('peer_gone', `peer connection ${state}`);
      }
    });
    this.timers.push(
      setTimeout(() => {
        if (!this.connected) this.close('ice_timeout', `ICE did not connect within ${this.options.connectTimeoutMs} ms`);
      }, this.options.connectTimeoutMs),
    );
    const liveness = setInterval(() => {
      if (this.connected && performance.now() - this.lastHeardAt > this.options.peerTimeoutMs) {
        this.close('peer_gone', `nothing heard from the peer for ${this.options.peerTimeoutMs} ms`);
      }
    }, LIVENESS_CHECK_MS);
    this.timers.push(liveness);
    for (const t of this.timers) t.unref?.();
  }

  onClosed(listener: (ending: CallEnding, reason: string) => void): void {
    this.closedListeners.push(listener);
  }

  /** RealtimeOutput: one server event on the data channel (queued until the client opens it). */
  send(event: RealtimeServerEvent): void {
    if (this.closed) return;
    // A call's audio travels on its track; an audio delta (none is sent here today) would be base64 like on the WebSocket.
    const text = serverEventJson(event, (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'));
    const channel = this.channel;
    if (!channel || channel.readyState !== 'open') {
      if (this.early.length >= (this.options.maxEventsBeforeOpen ?? 256))
        return this.close('slow_reader', 'too many events before the data channel opened');
      this.early.push(text);
      return;
    }
    channel.send(text);
    if (channel.bufferedAmount > this.options.maxBufferedBytes) this.close('slow_reader', 'client is not reading events fast enough');
  }

  /**
   * RealtimeOutput: the session ended. Its last event gets a moment to leave on the data channel
   * (also when the client has not opened it yet: a refused configuration is still heard), then the
   * call closes.
   */
  close(ending: SessionEnding | CallEnding, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    // A caller who hung up before connecting will never read what waits for the channel.
    const gone = ending === 'peer_gone' || ending === 'ice_timeout' || (ending === 'hangup' && !this.connected);
    const open = this.channel?.readyState === 'open';
    if (!gone && !open && this.early.length > 0) {
      // Torn down when the channel opens and flushes (onChannel), or after the connect timeout.
      this.pendingTeardown = { ending, reason };
      this.later(() => void this.teardown(ending, reason), this.options.connectTimeoutMs);
      return;
    }
    if (open && !gone) this.whenDrained(() => void this.teardown(ending, reason));
    else this.later(() => void this.teardown(ending, reason), 0);
  }

  /** Runs `fn` once the data channel has nothing queued (at most MAX_DRAIN_MS), CLOSE_GRACE_MS later. */
  private whenDrained(fn: () => void): void {
    const deadline = performance.now() + MAX_DRAIN_MS;
    const check = () => {
      if ((this.channel?.bufferedAmount ?? 0) === 0 || performance.now() > deadline) this.later(fn, CLOSE_GRACE_MS);
      else this.later(check, 20);
    };
    check();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether ICE has connected (a call still waiting for its caller counts apart: WebRtcCallService). */
  get isConnected(): boolean {
    return this.connected;
  }

  private async teardown(ending: SessionEnding | CallEnding, reason: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.callVideo?.close();
    this.replyTrack.close();
    this.decoder?.release();
    this.decoder = null;
    this.session?.transportClosed();
    for (const listener of this.closedListeners) listener(ending as CallEnding, reason);
    try {
      this.channel?.close();
    } catch {
      // already closed
    }
    // The SCTP association is aborted while DTLS is still up: werift's close() stops DTLS and ICE
    // first and its SCTP ABORT then goes nowhere, so the client's data channel stayed open until
    // its consent checks failed (Chromium: over 10 s after a refused configuration).
    await this.pc.sctpTransport
      ?.stop()
      .catch((err: unknown) => this.options.logger.debug({ err: String(err) }, 'aborting the SCTP association failed'));
    await this.pc.close().catch((err: unknown) => this.options.logger.debug({ err: String(err) }, 'closing a peer connection failed'));
  }

  private onChannel(channel: RTCDataChannel): void {
    if (channel.label !== EVENTS_CHANNEL || this.channel) {
      channel.close();
      return;
    }
    this.channel = channel;
    const flush = () => {
      for (const text of this.early.splice(0)) channel.send(text);
      const pending = this.pendingTeardown;
      if (pending) this.whenDrained(() => void this.teardown(pending.ending, pending.reason));
    };
    if (channel.readyState === 'open') flush();
    else channel.stateChanged.subscribe((state) => state === 'open' && flush());
    channel.stateChanged.subscribe((state) => {
      if (state === 'closed') this.close('peer_gone', 'the client closed the data channel');
    });
    channel.onMessage.subscribe((data) => this.onMessage(data));
  }

  private onMessage(data: string | Buffer): void {
    this.lastHeardAt = performance.now();
    const session = this.session;
    if (!session || this.closing) return;
    if (!this.budget.take(typeof data === 'string' ? Buffer.byteLength(data) : data.length)) return this.dropFlooder();
    if (typeof data !== 'string') {
      void session.rejectFrame('Binary messages are not supported; send JSON text.');
      return;
    }
    let parsed: unknown;
    try {
      parsed = parseCallerJson(data);
    } catch (err) {
      void session.rejectFrame(`Invalid JSON: ${(err as Error).message}`);
      return;
    }
    if (++this.pending > this.options.maxPendingEvents) {
      this.close('protocol_violation', 'too many client events waiting');
      return;
    }
    void session.handle(parsed).finally(() => this.pending--);
  }

  /** Over the inbound budget: one `error` saying so, then the end; nothing more it sends is read. */
  private dropFlooder(): void {
    const { eventsPerSecond, bytesPerSecond } = this.options.inbound;
    this.options.logger.warn(
      { callId: this.id, eventsPerSecond, bytesPerSecond },
      'closing a realtime call that sends faster than its inbound budget',
    );
    this.send({ type: 'error', event_id: `event_${randomBytes(12).toString('hex')}`, error: inboundBudgetError(this.options.inbound) });
    this.close('inbound_rate_exceeded', 'inbound rate limit exceeded');
  }

  private onRtp(rtp: RtpPacket): void {
    this.lastHeardAt = performance.now();
    const session = this.session;
    const decoder = this.decoder;
    if (!session || !decoder || this.closing) return;
    // Late or repeated packets are dropped (no jitter buffer: loopback and LAN reorder rarely).
    const seq = rtp.header.sequenceNumber;
    if (this.lastSequence >= 0 && ((seq - this.lastSequence) & 0xffff) > 0x8000) return;
    if (seq === this.lastSequence) return;
    this.lastSequence = seq;
    let samples: Int16Array;
    try {
      samples = decoder.decode(new Uint8Array(rtp.payload));
    } catch {
      return; // a corrupt packet: the rest of the audio goes on
    }
    if (samples.length > 0) void session.appendInputSamples(samples);
  }

  /**
   * A video m-line in the offer: with the live avatar, our H.264 track goes out on it (sendonly,
   * in the reply audio's stream); without, or when the offer has no H.264 in packetization mode 1,
   * it is answered inactive (the call goes on voice only).
   */
  private setUpVideo(): void {
    const video = this.pc.getTransceivers().find((t) => t.kind === 'video');
    if (!video) return;
    const sendable = keepSendableH264(video);
    const avatar = this.options.avatarVideo;
    if (!avatar || !sendable) {
      video.setDirection('inactive');
      return;
    }
    video.setDirection('sendonly');
    const stream = this.audio!.sender.streamId ?? `call-${this.id}`;
    this.audio!.sender.streamId = stream;
    video.sender.streamId = stream;
    const track = new RtpVideoTrack(
      { sendRtp: (packet: RtpPacket) => video.sender.sendRtp(packet) },
      video.sender.codec?.payloadType ?? 0,
      mediaClock.now(),
    );
    const callVideo = new CallVideo(this.replyTrack, track, {
      encoder: avatar.encoder,
      leadMs: avatar.leadMs,
      clock: mediaClock,
      logger: this.options.logger.child({ callId: this.id }),
    });
    // werift routes a PLI by the packet's sender SSRC before the media SSRC it is about: a client
    // whose feedback leaves from the SSRC of a stream it sends (werift's own client does) has its
    // PLI handed to one of our receivers, so it is looked for there too (restarts are throttled)
    video.sender.onPictureLossIndication.subscribe(() => callVideo.keyframeRequested());
    const onRtcp = (packet: RtcpPacket): void => {
      if (packet.type !== RtcpPayloadSpecificFeedback.type) return;
      const { feedback } = packet as RtcpPayloadSpecificFeedback;
      if (feedback.count === PictureLossIndication.count && (feedback as PictureLossIndication).mediaSsrc === video.sender.ssrc)
        callVideo.keyframeRequested();
    };
    for (const t of this.pc.getTransceivers()) t.receiver.onRtcp.subscribe(onRtcp);
    this.callVideo = callVideo;
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(fn, ms);
    t.unref?.();
  }
}

/**
 * Keeps the offered H.264 variants the live encoder's stream may be sent as: packetization mode 1
 * and a baseline profile (profile_idc 0x42; constrained baseline streams decode as either); the
 * sender uses the first. Returns whether one is left.
 */
function keepSendableH264(video: RTCRtpTransceiver): boolean {
  const sendable = video.codecs.filter((c) => {
    const fmtp = (c.parameters ?? '').toLowerCase();
    return c.mimeType.toLowerCase() === 'video/h264' && /packetization-mode=1/.test(fmtp) && /profile-level-id=42/.test(fmtp);
  });
  if (sendable.length === 0) return false;
  video.codecs = sendable;
  video.sender.codec = sendable[0];
  return true;
}
