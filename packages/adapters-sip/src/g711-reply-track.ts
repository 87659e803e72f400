import { FramePlayout, type ReplyAudioPlayout, type ReplyAudioTrack } from '@svc/core';

/** G.711 is 8 kHz; one RTP packet carries 20 ms (the ptime every phone and PBX expects). */
const G711_RATE = 8000;
const FRAME_MS = 20;
/** The pacing timer's period; frames due are sent in one go, so timer jitter does not drift. */
const TICK_MS = 10;
/** Most audio sent at once to catch up after a stall (more would overflow a phone's jitter buffer). */
const MAX_BURST_MS = 100;

/** Where a 20 ms frame goes (the call's RTP sender), with whether it starts a talk spurt. */
export type FrameSink = (frame: Int16Array, marker: boolean) => void;

/**
 * A phone call's outgoing audio (the core's ReplyAudioTrack): replies are synthesized at the call's
 * codec rate (8 kHz G.711, 48 kHz Opus) and handed to the sink one 20 ms frame at a time, in real time, one response after another. Sending
 * is the pacing, so what was sent is what the caller heard and a barge-in truncates at `sentMs()`.
 * A talk spurt's frames are due at its start plus 20 ms each; after a stall at most MAX_BURST_MS go
 * at once and the rest of the spurt shifts later.
 */
export class G711ReplyTrack implements ReplyAudioTrack {
  private readonly frames: { sampleRate: number; frameSamples: number };
  private readonly playouts: FramePlayout[] = [];
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
    /** The call's codec rate (48 kHz for an Opus call): the replies are synthesized at it. */
    readonly sampleRate: number = G711_RATE,
  ) {
    this.leadSamples = Math.round((leadMs / 1000) * sampleRate);
    this.frames = { sampleRate, frameSamples: (sampleRate * FRAME_MS) / 1000 };
  }

  open(): ReplyAudioPlayout {
    const playout = new FramePlayout(this.frames, this.leadSamples);
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
