import type { ReplyAudioPlayout, ReplyAudioTrack } from '@svc/core';

/** G.711 is 8 kHz; one RTP packet carries 20 ms (the ptime every phone and PBX expects). */
export const G711_RATE = 8000;
export const FRAME_MS = 20;
export const FRAME_SAMPLES = (G711_RATE * FRAME_MS) / 1000;
/** The pacing timer's period; frames due are sent in one go, so timer jitter does not drift. */
const TICK_MS = 10;
/** Most audio sent at once to catch up after a stall (more would overflow a phone's jitter buffer). */
const MAX_BURST_MS = 100;

/** Where a frame of 160 samples goes (the call's RTP sender), with whether it starts a talk spurt. */
export type FrameSink = (frame: Int16Array, marker: boolean) => void;

/** One response's audio: queued samples, what was written and sent, and who waits. */
class Playout implements ReplyAudioPlayout {
  private chunks: Int16Array[] = [];
  queued = 0;
  private written = 0;
  private sent = 0;
  private finished = false;
  cleared = false;
  paused = false;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly leadSamples: number) {}

  async write(samples: Int16Array, signal: AbortSignal): Promise<void> {
    if (this.cleared || this.finished || samples.length === 0) return;
    this.chunks.push(samples);
    this.queued += samples.length;
    this.written += samples.length;
    await this.until(() => this.cleared || this.queued <= this.leadSamples, signal);
  }

  writtenMs(): number {
    return (this.written / G711_RATE) * 1000;
  }

  sentMs(): number {
    return (this.sent / G711_RATE) * 1000;
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

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wake();
  }

  get done(): boolean {
    return this.cleared || (this.finished && this.queued === 0);
  }

  /** One frame, a short last one padded with silence once the playout is finished; null when none is ready. */
  takeFrame(): Int16Array | null {
    if (this.paused) return null;
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
 * A phone call's outgoing audio (the core's ReplyAudioTrack): replies are synthesized at 8 kHz and
 * handed to the sink one 20 ms frame at a time, in real time, one response after another. Sending
 * is the pacing, so what was sent is what the caller heard and a barge-in truncates at `sentMs()`.
 * A talk spurt's frames are due at its start plus 20 ms each; after a stall at most MAX_BURST_MS go
 * at once and the rest of the spurt shifts later.
 */
export class G711ReplyTrack implements ReplyAudioTrack {
  readonly sampleRate = G711_RATE;
  private readonly playouts: Playout[] = [];
  private readonly leadSamples: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private spurtStart = 0;
  private spurtFrames = 0;
  private talking = false;
  private closed = false;

  constructor(
    private readonly sink: FrameSink,
    leadMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.leadSamples = Math.round((leadMs / 1000) * G711_RATE);
  }

  open(): ReplyAudioPlayout {
    const playout = new Playout(this.leadSamples);
    if (this.closed) {
      playout.clear();
      return playout;
    }
    this.playouts.push(playout);
    this.timer ??= setInterval(() => this.tick(), TICK_MS);
    this.timer.unref?.();
    return playout;
  }

  close(): void {
    this.closed = true;
    for (const p of this.playouts) p.clear();
    this.playouts.length = 0;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Sends every frame that is due by now. */
  tick(): void {
    const now = this.now();
    const behind = now - (this.spurtStart + this.spurtFrames * FRAME_MS);
    if (this.talking && behind > MAX_BURST_MS) this.spurtStart += behind - MAX_BURST_MS;
    for (;;) {
      while (this.playouts.length > 0 && this.playouts[0]!.done) this.playouts.shift();
      const current = this.playouts[0];
      if (!current) {
        this.talking = false;
        if (this.timer) clearInterval(this.timer);
        this.timer = null;
        return;
      }
      if (!this.talking) {
        if (current.queued === 0 || current.paused) return;
        this.spurtStart = now;
        this.spurtFrames = 0;
        this.talking = true;
      }
      if (this.spurtStart + this.spurtFrames * FRAME_MS > now) return;
      const frame = current.takeFrame();
      if (!frame) {
        // synthesis is behind the wire (or paused): the next samples start a new spurt
        this.talking = false;
        return;
      }
      this.sink(frame, this.spurtFrames === 0);
      this.spurtFrames++;
    }
  }
}
