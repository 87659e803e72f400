import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import { aLawDecode, aLawEncode, muLawDecode, muLawEncode } from '@svc/core';
import { JitterBuffer } from './jitter-buffer.js';
import { parseRtp, serializeRtp } from './rtp-packet.js';
import type { AudioOffer, G711Codec } from './sdp.js';
import { FRAME_SAMPLES } from './g711-reply-track.js';

/** Packets held to put reordered ones back in order: 3 x 20 ms, a LAN's or a PBX's jitter. */
const JITTER_DEPTH = 3;
/** The largest datagram read as RTP (a 20 ms G.711 packet is 172 bytes; a caller may send 60 ms or more). */
const MAX_RTP_BYTES = 2048;

export interface RtpMediaEvents {
  /** The caller's audio, decoded, in order (8 kHz samples). */
  audio(samples: Int16Array): void;
  /** A packet arrived from the caller (liveness). */
  heard(): void;
}

const DECODE: Record<G711Codec, (b: Uint8Array) => Int16Array> = { PCMU: muLawDecode, PCMA: aLawDecode };
const ENCODE: Record<G711Codec, (s: Int16Array) => Uint8Array> = { PCMU: muLawEncode, PCMA: aLawEncode };

/**
 * One call's RTP over UDP: a socket of its own, the caller's G.711 decoded through a small jitter
 * buffer, the reply's frames encoded and sent. Symmetric RTP (RFC 4961): replies go to where the
 * caller's packets come from (a caller behind NAT is reached), once one has come from the address
 * its SIP or its SDP came from; packets from any other address are dropped, so a stranger cannot
 * inject audio or steal the reply stream. Nothing is sent before the caller's first packet: an SDP
 * naming someone else's address cannot aim the reply stream at them.
 */
export class RtpMedia {
  private socket: Socket | null = null;
  private remote: { address: string; port: number } = { address: '', port: 0 };
  private latched = false;
  private readonly jitter = new JitterBuffer<Buffer>(JITTER_DEPTH);
  private readonly ssrc = randomInt(0, 0xffffffff);
  private sequence = randomInt(0, 0xffff);
  private readonly timestampBase = randomInt(0, 0xffffffff);
  private readonly origin = performance.now();
  private lastTimestamp: number | null = null;
  packetsSent = 0;
  packetsReceived = 0;
  /** When the caller's first audio packet came (performance.now()), null before. */
  firstAudioAt: number | null = null;

  constructor(
    private offer: AudioOffer,
    /** The addresses the caller's media may come from (its SIP source, its SDP address). */
    private readonly trusted: Set<string>,
    private readonly events: RtpMediaEvents,
  ) {}

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

  /** A re-INVITE's new offer (hold, a moved endpoint): same codec, maybe a new address. */
  update(offer: AudioOffer): void {
    this.offer = { ...offer, codec: this.offer.codec, payloadType: this.offer.payloadType };
    this.trusted.add(offer.address);
  }

  get codec(): G711Codec {
    return this.offer.codec;
  }

  /** Sends one 20 ms frame of the reply (nothing while the caller holds the call). */
  sendFrame(frame: Int16Array, marker: boolean): void {
    if (!this.socket || !this.latched || this.offer.direction === 'sendonly' || this.offer.direction === 'inactive') return;
    // A new talk spurt's timestamp follows the wall clock (the gap is silence to the caller).
    const elapsed = Math.round(((performance.now() - this.origin) * 8000) / 1000);
    const timestamp =
      marker || this.lastTimestamp === null ? (this.timestampBase + elapsed) >>> 0 : (this.lastTimestamp + FRAME_SAMPLES) >>> 0;
    this.lastTimestamp = timestamp;
    const packet = serializeRtp({
      payloadType: this.offer.payloadType,
      sequence: this.sequence,
      timestamp,
      ssrc: this.ssrc,
      marker,
      payload: Buffer.from(ENCODE[this.offer.codec](frame)),
    });
    this.sequence = (this.sequence + 1) & 0xffff;
    this.packetsSent++;
    this.socket.send(packet, this.remote.port, this.remote.address);
  }

  close(): void {
    try {
      this.socket?.close();
    } catch {
      // already closed
    }
    this.socket = null;
  }

  private onDatagram(data: Buffer, from: RemoteInfo): void {
    if (data.length > MAX_RTP_BYTES || !this.trusted.has(from.address)) return;
    const packet = parseRtp(data);
    if (!packet) return;
    this.remote = { address: from.address, port: from.port };
    this.latched = true;
    this.events.heard();
    // telephone-event and comfort noise (PT 13) are tolerated, not played
    if (packet.payloadType !== this.offer.payloadType) return;
    this.packetsReceived++;
    this.firstAudioAt ??= performance.now();
    for (const payload of this.jitter.push(packet.sequence, packet.payload)) this.events.audio(DECODE[this.offer.codec](payload));
  }
}
