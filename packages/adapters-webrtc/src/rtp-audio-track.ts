import { FramePacer, type FramePlayout, type OpusCodec, type ReplyAudioPlayout, type ReplyAudioTrack } from '@svc/core';
import { RtpHeader, RtpPacket } from 'werift';
import { mediaClock } from './media-clock.js';

/** Opus at 48 kHz, 20 ms per RTP packet (what browsers send and expect). */
export const RTP_SAMPLE_RATE = 48000;
export const FRAME_MS = 20;
const FRAME_SAMPLES = (RTP_SAMPLE_RATE * FRAME_MS) / 1000;
const OPUS_FRAMES = { sampleRate: RTP_SAMPLE_RATE, frameSamples: FRAME_SAMPLES };
const REPLY_DELAYS_KEPT = 100;

/**
 * Who gets the reply audio ahead of the wire with the moment each sample will be played (the live
 * avatar: the mouth of frame t speaks the audio sent at t). Times are the track's `now()` clock.
 */
export interface ScheduledAudioListener {
  speak(samples: Int16Array, sampleRate: number, atMs: number): void;
  /** Audio from `atMs` on will not be played (barge-in, cancel). */
  cut(atMs: number): void;
}

/** Where the packets go (the call's audio sender). */
export interface RtpPacketSink {
  sendRtp(packet: RtpPacket): unknown;
}

export interface RtpAudioTrackOptions {
  opus: OpusCodec;
  /** Most audio queued ahead of what was sent before `write` waits (backpressure on synthesis). */
  leadMs: number;
  /** Milliseconds since an arbitrary origin (the call's media clock in production, a test clock in tests). */
  now?: () => number;
}

/**
 * The call's outgoing audio: spoken replies (48 kHz samples) encoded to Opus and sent as RTP in
 * real time, one 20 ms packet per frame, one response after another. Sending is the pacing: what
 * was sent is exactly what the listener's jitter buffer got, so a barge-in truncates the reply at
 * `sentMs()`. When nothing is queued nothing is sent (the RTP timestamp still advances with the
 * wall clock and the next packet carries the marker bit, as for a talk spurt after DTX).
 *
 * A talk spurt's timeline is fixed when its first samples are written: it starts `startDelayMs`
 * later (0 unless a live avatar listens: then long enough for its first frames to be made) and each
 * sample written plays at the spurt's start plus the samples before it, which is what the
 * ScheduledAudioListener is told, before the samples leave. Without that delay a reply's first
 * packet leaves while its first 20 ms are written (the core's FramePacer paces, as for SIP).
 */
export class RtpAudioTrack implements ReplyAudioTrack {
  readonly sampleRate = RTP_SAMPLE_RATE;
  private readonly pacer: FramePacer;
  private readonly encoder: { encode(pcm: Int16Array): Uint8Array[] };
  private readonly now: () => number;
  /** Samples scheduled in the current talk spurt. */
  private spurtSamples = 0;
  /** Where the audio told to the listener ends (its timeline beyond this is silence). */
  private toldUntilMs = -Infinity;
  private listener: ScheduledAudioListener | null = null;
  private sequence = Math.floor(Math.random() * 0x10000);
  private readonly timestampBase = Math.floor(Math.random() * 0x100000000);
  private readonly origin: number;
  private closed = false;
  /** Packets sent (a test and the logs read it). */
  packetsSent = 0;
  /** Per reply, its first samples written -> its first packet sent (ms, the last REPLY_DELAYS_KEPT; the webrtc bench reads it). */
  readonly firstPacketDelaysMs: number[] = [];
  /** When each playout not sent from yet got its first samples. */
  private readonly firstWrittenAt = new Map<FramePlayout, number>();

  constructor(
    private readonly sink: RtpPacketSink,
    private readonly payloadType: number,
    options: RtpAudioTrackOptions,
  ) {
    this.encoder = options.opus.createEncoder(FRAME_MS);
    this.now = options.now ?? (() => performance.now());
    this.pacer = new FramePacer({
      format: OPUS_FRAMES,
      leadSamples: Math.round((options.leadMs / 1000) * RTP_SAMPLE_RATE),
      clock: { now: this.now, setTimer: mediaClock.setTimer },
      send: (frame, marker, dueMs) => this.send(frame, marker, dueMs),
      spurtStarted: () => (this.spurtSamples = 0),
    });
    this.origin = this.now();
  }

  open(): ReplyAudioPlayout {
    if (this.closed) return this.pacer.open();
    // a playout's last frame is padded with silence: the next one starts on a frame boundary
    this.spurtSamples = Math.ceil(this.spurtSamples / FRAME_SAMPLES) * FRAME_SAMPLES;
    return this.pacer.open({
      queued: (p, samples) => {
        if (p.sent === 0 && !this.firstWrittenAt.has(p)) this.firstWrittenAt.set(p, this.now());
        if (!this.heldBack(p)) this.schedule(samples);
      },
      changed: (p) => this.retell(p),
    });
  }

  /**
   * Tells `listener` every reply sample before it is sent, with the moment it plays, and starts each
   * talk spurt `startDelayMs` after its first samples are written (null: no listener, no delay).
   */
  listen(listener: ScheduledAudioListener | null, startDelayMs = 0): void {
    this.listener = listener;
    this.pacer.startDelayMs = listener ? startDelayMs : 0;
  }

  /** The moment (the track's clock) an RTP timestamp of this track stands for: receiver-side sync measurements map back with it. */
  mediaTimeOf(rtpTimestamp: number): number {
    return this.origin + (((rtpTimestamp - this.timestampBase) >>> 0) / RTP_SAMPLE_RATE) * 1000;
  }

  /** Milliseconds of audio queued and not yet sent, over every playout. */
  get queuedMs(): number {
    return (this.pacer.playouts.reduce((n, p) => n + p.queued, 0) / RTP_SAMPLE_RATE) * 1000;
  }

  close(): void {
    this.closed = true;
    this.pacer.close();
    this.firstWrittenAt.clear();
  }

  /** Sends every frame that is due by now (the pacer's timer runs it; tests run it on their clock). */
  tick(): void {
    this.pacer.tick();
  }

  /** Samples just queued: the moment they play (a new spurt when none is running), told to the listener. */
  private schedule(samples: Int16Array): void {
    const now = this.now();
    const pacer = this.pacer;
    // a spurt whose scheduled audio has all been played by now has run dry: a new one starts
    if (pacer.talking && pacer.spurtStart + (this.spurtSamples / RTP_SAMPLE_RATE) * 1000 < now) pacer.talking = false;
    if (!pacer.talking) pacer.startSpurt(now);
    this.tell(samples);
  }

  /** Tells the listener that `samples` play next in the running spurt. */
  private tell(samples: Int16Array): void {
    const atMs = this.pacer.spurtStart + (this.spurtSamples / RTP_SAMPLE_RATE) * 1000;
    this.spurtSamples += samples.length;
    this.toldUntilMs = this.pacer.spurtStart + (this.spurtSamples / RTP_SAMPLE_RATE) * 1000;
    this.listener?.speak(samples, RTP_SAMPLE_RATE, atMs);
  }

  /** Whether a playout's samples wait unscheduled: it, or one before it, is paused. */
  private heldBack(playout: FramePlayout): boolean {
    for (const p of this.pacer.playouts) {
      if (!p.done && p.paused) return true;
      if (p === playout) return false;
    }
    return false;
  }

  /**
   * A playout was cleared, paused or resumed: the listener's timeline is redone from where the wire
   * is. Everything not sent is cut there, then the unsent samples of the playouts that will play
   * next are told again in order, up to a paused one (it and those after it wait for its resume).
   * When the change is at the head (the playout being sent), its spurt ends at the wire and what
   * follows starts a new one, `startDelayMs` later, as a reply does, so the avatar's frames (posed
   * that far ahead) can show it; a change further back keeps the spurt sending (the re-told samples
   * land where they were).
   */
  private retell(changed: FramePlayout): void {
    if (this.closed) return;
    const pacer = this.pacer;
    const wireMs = pacer.talking ? pacer.wireMs : this.now();
    // everything before the wire's next frame has left (or, in the start delay, nothing has)
    if (this.toldUntilMs > wireMs) this.listener?.cut(wireMs);
    this.toldUntilMs = Math.min(this.toldUntilMs, wireMs);
    const head = pacer.playouts.findIndex((p) => !p.done);
    if (head < 0 || pacer.playouts.indexOf(changed) <= head) pacer.talking = false;
    else this.spurtSamples = pacer.spurtFrames * FRAME_SAMPLES;
    let first = true;
    for (const p of pacer.playouts) {
      if (p.done) continue;
      if (p.paused) break;
      // a playout's last frame is padded with silence: the next one starts on a frame boundary
      if (!first) this.spurtSamples = Math.ceil(this.spurtSamples / FRAME_SAMPLES) * FRAME_SAMPLES;
      // a kept spurt goes on where the wire is (even when its next frame is a tick late)
      for (const samples of p.chunks) {
        if (pacer.talking) this.tell(samples);
        else this.schedule(samples);
      }
      first = false;
    }
  }

  private send(frame: Int16Array, marker: boolean, at: number): void {
    this.noteFirstPacket();
    for (const payload of this.encoder.encode(frame)) {
      const timestamp = (this.timestampBase + Math.round(((at - this.origin) * RTP_SAMPLE_RATE) / 1000)) >>> 0;
      const header = new RtpHeader({ payloadType: this.payloadType, sequenceNumber: this.sequence, timestamp, marker });
      this.sequence = (this.sequence + 1) & 0xffff;
      this.packetsSent++;
      void Promise.resolve(this.sink.sendRtp(new RtpPacket(header, Buffer.from(payload)))).catch(() => undefined);
    }
  }

  /** The playout being sent just sent its first frame: how long after its first samples. */
  private noteFirstPacket(): void {
    const playout = this.pacer.playouts[0];
    const writtenAt = playout && this.firstWrittenAt.get(playout);
    if (writtenAt === undefined) return;
    this.firstWrittenAt.delete(playout!);
    // a cleared playout's entry goes with the next reply's first packet
    for (const p of this.firstWrittenAt.keys()) if (p.done) this.firstWrittenAt.delete(p);
    this.firstPacketDelaysMs.push(this.now() - writtenAt);
    if (this.firstPacketDelaysMs.length > REPLY_DELAYS_KEPT) this.firstPacketDelaysMs.shift();
  }
}
