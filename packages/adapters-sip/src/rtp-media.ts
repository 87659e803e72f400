import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import type { OpusCodec } from '@svc/core';
import { JitterBuffer } from './jitter-buffer.js';
import { parseRtp, serializeRtp, type RtpPacket } from './rtp-packet.js';
import type { AudioOffer } from './sdp.js';
import { openRtpAudioCodec, PACKET_MS, type RtpAudioCodec, type SipAudioCodecName } from './rtp-audio-codec.js';
import { TelephoneEventReceiver, type Keypress } from './telephone-event.js';

/** Packets held to put reordered ones back in order: 3 x 20 ms, a LAN's or a PBX's jitter. */
const JITTER_DEPTH = 3;
/** The largest datagram read as RTP (a 20 ms G.711 packet is 172 bytes; a caller may send 60 ms or more). */
const MAX_RTP_BYTES = 2048;
/** RFC 3551's static payload type of comfort noise (RFC 3389). */
const COMFORT_NOISE_PT = 13;
/**
 * How far the stream may fall behind the wall clock (an event-loop stall, a hold) before its next
 * talk-spurt start or silence packet skips the missed 20 ms slots instead of catching up on them.
 */
const RESYNC_AFTER_MS = 100;

export interface RtpMediaEvents {
  /** The caller's audio, decoded, in order (at the codec's rate: `RtpMedia.sampleRate`). */
  audio(samples: Int16Array): void;
  /** A packet arrived from the caller (liveness). */
  heard(): void;
  /** The caller pressed a key (RFC 4733 telephone-event), reported once per press, in order. */
  keypress?(press: Keypress): void;
}

/**
 * One call's RTP over UDP: a socket of its own, the caller's packets put in order by a small jitter
 * buffer, then its audio decoded (G.711 or Opus), its telephone-events turned into key presses, its
 * comfort noise (RFC 3389) turned into silence; the reply's frames encoded and sent. Symmetric RTP
 * (RFC 4961): replies go to where the caller's packets come from (a caller behind NAT is reached),
 * once one has come from the address its SIP or its SDP came from; packets from any other address
 * are dropped, so a stranger cannot inject audio or steal the reply stream. Nothing is sent before
 * the caller's first packet: an SDP naming someone else's address cannot aim the reply stream at them.
 */
export class RtpMedia {
  private socket: Socket | null = null;
  private remote: { address: string; port: number } = { address: '', port: 0 };
  private latched = false;
  private readonly jitter = new JitterBuffer<RtpPacket>(JITTER_DEPTH);
  /** The caller's stream (its SSRC): a new one resets the reorder buffer. */
  private callerSsrc: number | null = null;
  private readonly ssrc = randomInt(0, 0xffffffff);
  private sequence = randomInt(0, 0xffff);
  /** The next packet's RTP timestamp: every packet, reply or silence, advances it by its 20 ms. */
  private nextTimestamp = randomInt(0, 0xffffffff);
  /** When (performance.now()) the next packet's 20 ms slot starts; null before the first packet. */
  private nextSlot: number | null = null;
  /** One 20 ms frame of silence at the codec's rate (what is sent between replies). */
  private readonly silentFrame: Int16Array;
  private readonly audioCodec: RtpAudioCodec;
  private readonly keys: TelephoneEventReceiver;
  /** While the caller sends comfort noise instead of audio: silence goes to the session in real time. */
  private silence: ReturnType<typeof setInterval> | null = null;
  packetsSent = 0;
  packetsReceived = 0;
  /** Audio payloads that could not be decoded (a corrupt Opus packet): dropped. */
  packetsUndecodable = 0;
  /**
   * Datagrams from addresses the call does not trust: dropped. Counted for the call's log, since a
   * caller whose media comes from elsewhere (a media server or NAT the SDP does not name) is heard
   * as silence and ended for "no RTP" while its packets arrive.
   */
  packetsFromStrangers = 0;
  /** The address the last of those came from. */
  lastStranger: string | null = null;
  /** When the caller's first audio packet came (performance.now()), null before. */
  firstAudioAt: number | null = null;

  constructor(
    private offer: AudioOffer,
    /** The addresses the caller's media may come from (its SIP source, its SDP address). */
    private readonly trusted: Set<string>,
    private readonly events: RtpMediaEvents,
    /** The Opus codec, when the call negotiated Opus. */
    opus: OpusCodec | null = null,
  ) {
    this.audioCodec = openRtpAudioCodec(offer.codec, opus);
    this.keys = new TelephoneEventReceiver(offer.telephoneEventRate);
    this.silentFrame = new Int16Array((this.audioCodec.sampleRate * PACKET_MS) / 1000);
  }

  /** Binds the call's port on `host` (any free one). */
  async open(host: string): Promise<number> {
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    this.socket = socket;
    socket.on('message', (data, rinfo) => this.onDatagram(data, rinfo));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    return socket.address().port;
  }

  /** A re-INVITE's new offer (hold, a moved endpoint): same codecs, maybe a new address. */
  update(offer: AudioOffer): void {
    // the codec and the key presses' clock stay (their decoders are the call's); the payload types follow the offer
    const { codec, telephoneEventRate } = this.offer;
    const wasHeld = this.held;
    const telephoneEvent = offer.telephoneEventRate === telephoneEventRate ? offer.telephoneEvent : null;
    this.offer = { ...offer, codec, telephoneEvent, telephoneEventRate };
    this.trusted.add(offer.address);
    // resumed: the caller's silence (no RTP) is timed from now, not from before the hold
    if (wasHeld && !this.held) this.events.heard();
  }

  /** What was agreed, as the caller's last offer left it (the answer is built from it). */
  get negotiated(): AudioOffer {
    return this.offer;
  }

  get codec(): SipAudioCodecName {
    return this.audioCodec.name;
  }

  /** The PCM rate both ways (8 kHz for G.711, 48 kHz for Opus). */
  get sampleRate(): number {
    return this.audioCodec.sampleRate;
  }

  /**
   * The caller holds the call (its last offer is not sendrecv): it may send nothing until it
   * resumes, as baresip does on hold even when it offers sendonly.
   */
  get held(): boolean {
    return this.offer.direction !== 'sendrecv';
  }

  /** Packets go out: the caller has sent one (the stream is latched) and does not hold the call. */
  get sending(): boolean {
    return this.socket !== null && this.latched && this.offer.direction !== 'sendonly' && this.offer.direction !== 'inactive';
  }

  /** When (performance.now()) the next packet's slot starts; null before the first packet. */
  get nextSlotAt(): number | null {
    return this.nextSlot;
  }

  /** Sends one 20 ms frame of the reply, `marker` at a talk spurt's start (nothing while the caller holds the call). */
  sendFrame(frame: Int16Array, marker: boolean): void {
    this.sendPacket(frame, marker);
  }

  /** Sends one 20 ms packet of silence: the stream between replies (RTP timeouts, NAT bindings). */
  sendSilence(): void {
    this.sendPacket(this.silentFrame, false);
  }

  /**
   * One packet of the call's single stream: one SSRC, sequence numbers +1 and timestamps +20 ms per
   * packet, reply and silence alike, so the caller's jitter buffer sees one unbroken stream. A talk
   * spurt's start or a silence packet that finds the stream far behind the wall clock (a stall, a
   * hold) skips the missed slots: the timestamp jumps, the sequence does not (nothing was lost).
   */
  private sendPacket(frame: Int16Array, marker: boolean): void {
    if (!this.sending) return;
    const now = performance.now();
    const slot = this.nextSlot ?? now;
    const behind = now - slot;
    const skipped = (marker || frame === this.silentFrame) && behind > RESYNC_AFTER_MS ? Math.floor(behind / PACKET_MS) : 0;
    const payload = this.audioCodec.encode(frame);
    if (!payload) return;
    const timestamp = (this.nextTimestamp + skipped * frame.length) >>> 0;
    this.nextTimestamp = (timestamp + frame.length) >>> 0;
    this.nextSlot = slot + (skipped + 1) * PACKET_MS;
    const packet = serializeRtp({
      payloadType: this.offer.payloadType,
      sequence: this.sequence,
      timestamp,
      ssrc: this.ssrc,
      marker,
      payload: Buffer.from(payload),
    });
    this.sequence = (this.sequence + 1) & 0xffff;
    this.packetsSent++;
    this.socket!.send(packet, this.remote.port, this.remote.address);
  }

  close(): void {
    this.stopSilence();
    try {
      this.socket?.close();
    } catch {
      // already closed
    }
    if (this.socket) this.audioCodec.release();
    this.socket = null;
  }

  private onDatagram(data: Buffer, from: RemoteInfo): void {
    if (!this.trusted.has(from.address)) {
      this.packetsFromStrangers++;
      this.lastStranger = from.address;
      return;
    }
    if (data.length > MAX_RTP_BYTES) return;
    const packet = parseRtp(data);
    if (!packet) return;
    this.remote = { address: from.address, port: from.port };
    this.latched = true;
    this.events.heard();
    // another source (RFC 3550: a new SSRC, as a PBX sends after a transfer or a bridge change) numbers
    // its packets afresh: the reorder buffer starts again with it
    if (this.callerSsrc !== null && packet.ssrc !== this.callerSsrc) this.jitter.reset();
    this.callerSsrc = packet.ssrc;
    // every payload type shares the caller's sequence numbers: all are put in order together
    for (const ready of this.jitter.push(packet.sequence, packet)) this.play(ready);
  }

  private play(packet: RtpPacket): void {
    if (!this.socket) return;
    if (packet.payloadType === this.offer.payloadType) return this.playAudio(packet.payload);
    if (packet.payloadType === this.offer.telephoneEvent) {
      for (const press of this.keys.push(packet.timestamp, packet.payload)) this.events.keypress?.(press);
      return;
    }
    // comfort noise: the caller is silent; the session hears silence (its voice activity detector ends the turn)
    if (packet.payloadType === COMFORT_NOISE_PT) return this.startSilence();
    // any other payload type was not negotiated: ignored
  }

  private playAudio(payload: Buffer): void {
    this.stopSilence();
    this.packetsReceived++;
    this.firstAudioAt ??= performance.now();
    const samples = this.audioCodec.decode(payload);
    if (samples) this.events.audio(samples);
    else this.packetsUndecodable++;
  }

  private startSilence(): void {
    if (this.silence) return;
    const frame = new Int16Array((this.sampleRate * PACKET_MS) / 1000);
    this.silence = setInterval(() => this.events.audio(frame), PACKET_MS);
    this.silence.unref?.();
  }

  private stopSilence(): void {
    if (this.silence) clearInterval(this.silence);
    this.silence = null;
  }
}
