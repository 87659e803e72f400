import type { OpusCodec, ReplyAudioPlayout, ReplyAudioTrack } from '@svc/core';
import { RtpHeader, RtpPacket } from 'werift';

/** Opus at 48 kHz, 20 ms per RTP packet (what browsers send and expect). */
export const RTP_SAMPLE_RATE = 48000;
export const FRAME_MS = 20;
const FRAME_SAMPLES = (RTP_SAMPLE_RATE * FRAME_MS) / 1000;
/** The pacing timer's period; frames due are sent in one go, so timer jitter does not drift. */
const TICK_MS = 10;
/** Most audio sent at once to catch up after a stall. */
const MAX_BURST_MS = 100;

/** Where the packets go (the call's audio sender). */
export interface RtpPacketSink {
  sendRtp(packet: RtpPacket): unknown;
}

export interface RtpAudioTrackOptions {
  opus: OpusCodec;
  /** Most audio queued ahead of what was sent before `write` waits (backpressure on synthesis). */
  leadMs: number;
  /** Milliseconds since an arbitrary origin (performance.now in production, a test clock in tests). */
  now?: () => number;
}

/** One response's audio: queued samples, what was written and sent, and who waits. */
class Playout implements ReplyAudioPlayout {
  chunks: Int16Array[] = [];
  queued = 0;
  written = 0;
  sent = 0;
  finished = false;
  cleared = false;
  private waiters = new Set<() => void>();

  constructor(private readonly leadSamples: number) {}

  async write(samples: Int16Array, signal: AbortSignal): Promise<void> {
    if (this.cleared || this.finished || samples.length === 0) return;
    this.chunks.push(samples);
    this.queued += samples.length;
    this.written += samples.length;
    await this.until(() => this.cleared || this.queued <= this.leadSamples, signal);
  }

  writtenMs(): number {
    return (this.written / RTP_SAMPLE_RATE) * 1000;
  }

  sentMs(): number {
    return (this.sent / RTP_SAMPLE_RATE) * 1000;
  }

  finish(): Promise<void> {
    this.finished = true;
    this.wake();
    return this.until(() => this.cleared || this.queued === 0);
  }

  clear(): void {
    this.cleared = true;
    this.chunks = [];
    this.queued = 0;
    this.wake();
  }

  /** Whether the track has nothing more to send of it (all sent, or cleared). */
  get done(): boolean {
    return this.cleared || (this.finished && this.queued === 0);
  }

  /** Takes one frame; a short last frame is padded with silence once the playout is finished. */
  takeFrame(): Int16Array | null {
    if (this.queued < FRAME_SAMPLES && !(this.finished && this.queued > 0)) return null;
    const frame = new Int16Array(FRAME_SAMPLES);
    let filled = 0;
    while (filled < FRAME_SAMPLES && this.chunks.length > 0) {
      const head = this.chunks[0]!;
      const n = Math.min(head.length, FRAME_SAMPLES - filled);
      frame.set(head.subarray(0, n), filled);
      filled += n;
      if (n === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(n);
    }
    this.queued -= filled;
    this.sent += filled;
    this.wake();
    return frame;
  }

  private until(done: () => boolean, signal?: AbortSignal): Promise<void> {
    if (done() || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!done() && !signal?.aborted) return;
        this.waiters.delete(check);
        signal?.removeEventListener('abort', check);
        resolve();
      };
      this.waiters.add(check);
      signal?.addEventListener('abort', check, { once: true });
    });
  }

  private wake(): void {
    for (const check of [...this.waiters]) check();
  }
}

/**
 * The call's outgoing audio: spoken replies (48 kHz samples) encoded to Opus and sent as RTP in
 * real time, one 20 ms packet per frame, one response after another. Sending is the pacing: what
 * was sent is exactly what the listener's jitter buffer got, so a barge-in truncates the reply at
 * `sentMs()`. When nothing is queued nothing is sent (the RTP timestamp still advances with the
 * wall clock and the next packet carries the marker bit, as for a talk spurt after DTX).
 */
export class RtpAudioTrack implements ReplyAudioTrack {
  readonly sampleRate = RTP_SAMPLE_RATE;
  private readonly playouts: Playout[] = [];
  private readonly encoder: { encode(pcm: Int16Array): Uint8Array[] };
  private readonly now: () => number;
  private readonly leadSamples: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Wall time of frame 0 of the current talk spurt, and frames sent in it. */
  private spurtStart = 0;
  private spurtFrames = 0;
  private talking = false;
  private sequence = Math.floor(Math.random() * 0x10000);
  private readonly timestampBase = Math.floor(Math.random() * 0x100000000);
  private readonly origin: number;
  private closed = false;
  /** Packets sent (a test and the logs read it). */
  packetsSent = 0;

  constructor(
    private readonly sink: RtpPacketSink,
    private readonly payloadType: number,
    options: RtpAudioTrackOptions,
  ) {
    this.encoder = options.opus.createEncoder(FRAME_MS);
    this.now = options.now ?? (() => performance.now());
    this.leadSamples = Math.round((options.leadMs / 1000) * RTP_SAMPLE_RATE);
    this.origin = this.now();
  }

  open(): ReplyAudioPlayout {
    if (this.closed) {
      const dead = new Playout(0);
      dead.clear();
      return dead;
    }
    const playout = new Playout(this.leadSamples);
    this.playouts.push(playout);
    this.timer ??= setInterval(() => this.tick(), TICK_MS);
    this.timer.unref?.();
    return playout;
  }

  /** Milliseconds of audio queued and not yet sent, over every playout. */
  get queuedMs(): number {
    return (this.playouts.reduce((n, p) => n + p.queued, 0) / RTP_SAMPLE_RATE) * 1000;
  }

  close(): void {
    this.closed = true;
    for (const p of this.playouts) p.clear();
    this.playouts.length = 0;
    this.stopTimer();
  }

  /** Sends every frame that is due by now. */
  tick(): void {
    const now = this.now();
    // Far behind (the event loop stalled): send at most MAX_BURST_MS at once and shift the rest of
    // the spurt later, rather than flood the listener's jitter buffer.
    const behind = now - (this.spurtStart + this.spurtFrames * FRAME_MS);
    if (this.talking && behind > MAX_BURST_MS) this.spurtStart += behind - MAX_BURST_MS;
    for (;;) {
      while (this.playouts.length > 0 && this.playouts[0]!.done) this.playouts.shift();
      const current = this.playouts[0];
      if (!current) {
        this.talking = false;
        return this.stopTimer();
      }
      if (!this.talking) {
        // A new talk spurt: its first frame leaves now.
        this.spurtStart = now;
        this.spurtFrames = 0;
      } else if (this.spurtStart + this.spurtFrames * FRAME_MS > now) {
        return; // the next frame is not due yet
      }
      const frame = current.takeFrame();
      if (!frame) {
        // Synthesis is behind the wire: the listener's buffer runs dry; the next frame starts a new spurt.
        this.talking = false;
        return;
      }
      const marker = !this.talking;
      this.talking = true;
      this.send(frame, marker, this.spurtStart + this.spurtFrames * FRAME_MS);
      this.spurtFrames++;
    }
  }

  private send(frame: Int16Array, marker: boolean, at: number): void {
    for (const payload of this.encoder.encode(frame)) {
      const timestamp = (this.timestampBase + Math.round(((at - this.origin) * RTP_SAMPLE_RATE) / 1000)) >>> 0;
      const header = new RtpHeader({ payloadType: this.payloadType, sequenceNumber: this.sequence, timestamp, marker });
      this.sequence = (this.sequence + 1) & 0xffff;
      this.packetsSent++;
      void Promise.resolve(this.sink.sendRtp(new RtpPacket(header, Buffer.from(payload)))).catch(() => undefined);
    }
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
