import { readFileSync } from 'node:fs';
import { OpusscriptOpusCodec } from '@svc/adapters-media';
import { PcmResampler } from '@svc/adapters-speech-recognition';
import { MediaStreamTrack, RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket, useVP8, type RTCDataChannel } from 'werift';

type ServerEvent = { type: string; [field: string]: any };

export interface CallResponse {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * A WebRTC client in Node (werift), doing what a browser and the agents SDK do: a data channel
 * `oai-events`, a microphone track, the complete offer POSTed to /v1/realtime/calls with its
 * candidates removed (a browser's createOffer() has none: the server must learn the client's
 * address from its checks), the answer applied. Mic audio is Opus-encoded 20 ms RTP in real time;
 * reply RTP is decoded, so tests can measure what was heard and when.
 */
export class WebRtcTestClient {
  readonly events: ServerEvent[] = [];
  /** Reply audio heard: decoded 48 kHz samples with their arrival times. */
  readonly heard: Array<{ at: number; samples: Int16Array }> = [];
  readonly pc: RTCPeerConnection;
  readonly channel: RTCDataChannel;
  private readonly mic = new MediaStreamTrack({ kind: 'audio' });
  private readonly opus = new OpusscriptOpusCodec();
  private readonly decoder = this.opus.createDecoder(20);
  private readonly encoder = this.opus.createEncoder(20);
  private waiters: Array<() => void> = [];
  private seq = 0;
  private ts = 0;
  callId: string | null = null;

  /** Video RTP received (an offer made with `video: true`): the live avatar's H.264 packets. */
  readonly videoRtp: Array<{ at: number; ssrc: number; timestamp: number; marker: boolean; payload: Buffer }> = [];

  /**
   * `video`: the offer also receives video, as a browser's with a recvonly video transceiver: H.264
   * in packetization mode 1 (`true`), or VP8 only (`'vp8'`, werift's default video codec, as some
   * SDKs and aiortc offer).
   */
  constructor(options: { video?: boolean | 'vp8' } = {}) {
    // No STUN server: loopback needs none, and werift's default is a public one.
    const video =
      options.video === 'vp8'
        ? [useVP8()]
        : options.video
          ? [
              new RTCRtpCodecParameters({
                mimeType: 'video/H264',
                clockRate: 90000,
                rtcpFeedback: [{ type: 'nack', parameter: 'pli' }],
                parameters: 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
              }),
            ]
          : [];
    this.pc = new RTCPeerConnection({
      iceServers: [],
      codecs: { audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })], video },
    });
    this.channel = this.pc.createDataChannel('oai-events');
    this.pc.addTransceiver(this.mic, { direction: 'sendrecv' });
    if (options.video) this.pc.addTransceiver('video', { direction: 'recvonly' });
    this.pc.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp) => {
        if (track.kind === 'video') {
          this.videoRtp.push({
            at: performance.now(),
            ssrc: rtp.header.ssrc,
            timestamp: rtp.header.timestamp,
            marker: rtp.header.marker,
            payload: rtp.payload,
          });
          return;
        }
        this.heard.push({ at: performance.now(), samples: this.decoder.decode(new Uint8Array(rtp.payload)) });
        this.wake();
      }),
    );
    this.channel.onMessage.subscribe((data) => {
      this.events.push(JSON.parse(String(data)) as ServerEvent);
      this.wake();
    });
  }

  /** The offer as a browser posts it: complete, without candidates. */
  async offer(): Promise<string> {
    await this.pc.setLocalDescription(await this.pc.createOffer());
    await new Promise<void>((resolve) => {
      if (this.pc.iceGatheringState === 'complete') return resolve();
      this.pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && resolve());
    });
    return this.pc
      .localDescription!.sdp.split('\r\n')
      .filter((l) => !l.startsWith('a=candidate') && l !== 'a=end-of-candidates')
      .join('\r\n');
  }

  /** POSTs the offer (SDP, or multipart with a session) and applies a 201's answer. */
  async call(baseUrl: string, key: string, session?: Record<string, unknown>): Promise<CallResponse> {
    const sdp = await this.offer();
    let init: RequestInit;
    if (session) {
      const form = new FormData();
      form.set('sdp', sdp);
      form.set('session', JSON.stringify(session));
      init = { method: 'POST', body: form, headers: { Authorization: `Bearer ${key}` } };
    } else {
      init = { method: 'POST', body: sdp, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/sdp' } };
    }
    const res = await fetch(`${baseUrl}/v1/realtime/calls`, init);
    const body = await res.text();
    if (res.status === 201) {
      this.callId = res.headers.get('location')?.split('/').pop() ?? null;
      await this.pc.setRemoteDescription({ type: 'answer', sdp: body });
    }
    return { status: res.status, headers: res.headers, body };
  }

  send(event: Record<string, unknown>): void {
    this.channel.send(JSON.stringify(event));
  }

  async waitFor(predicate: (e: ServerEvent) => boolean, timeoutMs = 20_000, what = 'event'): Promise<ServerEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(predicate);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; got ${this.events.map((e) => e.type).join(', ')}; ${this.state()}`);
      await this.nextChange(deadline - Date.now());
    }
  }

  /** Where the call got to, for a timeout's message (a call that never connected says nothing else). */
  state(): string {
    return `connection ${this.pc.connectionState}, ICE ${this.pc.iceConnectionState}, data channel ${this.channel.readyState}`;
  }

  waitForType(type: string, timeoutMs?: number): Promise<ServerEvent> {
    return this.waitFor((e) => e.type === type, timeoutMs, type);
  }

  async waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await this.nextChange(Math.min(200, deadline - Date.now()));
    }
  }

  /** Streams 48 kHz PCM as 20 ms Opus RTP packets in real time; resolves when all was sent. */
  async speak(pcm48k: Int16Array): Promise<void> {
    const frame = 960;
    const start = performance.now();
    for (let i = 0, n = 0; i < pcm48k.length; i += frame, n++) {
      const due = start + n * 20;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const chunk = new Int16Array(frame);
      chunk.set(pcm48k.subarray(i, i + frame));
      for (const payload of this.encoder.encode(chunk)) {
        this.mic.writeRtp(
          new RtpPacket(
            new RtpHeader({ payloadType: 111, sequenceNumber: this.seq++ & 0xffff, timestamp: (this.ts += frame) >>> 0 }),
            Buffer.from(payload),
          ),
        );
      }
    }
  }

  /** Decoded reply audio heard since `since` (performance.now()), as one buffer. */
  heardSince(since = 0): Int16Array {
    const parts = this.heard.filter((h) => h.at >= since).map((h) => h.samples);
    const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  /** When the first reply packet carrying sound (RMS over `threshold`) arrived after `since`. */
  firstSoundAfter(since: number, threshold = 300): number | null {
    for (const h of this.heard) {
      if (h.at < since) continue;
      let sum = 0;
      for (const s of h.samples) sum += s * s;
      if (Math.sqrt(sum / Math.max(1, h.samples.length)) > threshold) return h.at;
    }
    return null;
  }

  async close(): Promise<void> {
    await this.pc.close().catch(() => undefined);
  }

  private nextChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, ms));
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** A 16 kHz mono WAV (the LibriVox clips) resampled to the 48 kHz of an Opus track, with silence after it. */
export function wavAt48k(path: string, silenceAfterMs = 1500): Int16Array {
  const wav = readFileSync(path);
  const at = wav.indexOf('data') + 8;
  const pcm16k = new Int16Array(wav.buffer.slice(wav.byteOffset + at, wav.byteOffset + wav.length - ((wav.length - at) % 2)));
  const up = new PcmResampler().open(16000, 48000).process(pcm16k);
  const out = new Int16Array(up.length + (48000 * silenceAfterMs) / 1000);
  out.set(up);
  return out;
}
