import type { Clock } from '../../shared/clock.js';
import { FramePlayout, type FramePlayoutHooks } from './frame-playout.js';

/** The pacing timer's period while no spurt runs; frames due are sent in one go, so timer jitter does not drift. */
const TICK_MS = 10;
/** Most audio sent at once to catch up after a stall (more would overflow the listener's jitter buffer). */
const MAX_BURST_MS = 100;

/** A frame leaves: `marker` when it starts a talk spurt, `dueMs` the moment (the pacer's clock) it stands for. */
export type PacedFrameSink = (frame: Int16Array, marker: boolean, dueMs: number) => void;

export interface FramePacerOptions {
  format: { sampleRate: number; frameSamples: number };
  /** Most samples queued ahead of the wire before a playout's `write` waits (backpressure on synthesis). */
  leadSamples: number;
  /** `now()` in milliseconds from any origin; `setTimer` runs the pacing tick. */
  clock: Pick<Clock, 'now' | 'setTimer'>;
  send: PacedFrameSink;
  /** A talk spurt was started (its frame 0 is due at `spurtStart`): the track resets what it counts per spurt. */
  spurtStarted?: () => void;
}

/**
 * The one real-time pacer of a media track's reply audio (WebRTC's Opus, SIP's G.711): playouts
 * (one per response) are sent one after another, one fixed frame at a time, frame n of a talk spurt
 * due at the spurt's start plus n frames. Sending is the pacing, so what was sent is what the
 * listener's jitter buffer got. A reply's first frame leaves as soon as it is written (not at the
 * next tick): a spurt starts the moment its first full frame is queued, `startDelayMs` later when
 * the track asks for one (a live avatar needs time to pose its first frames). After a stall at most
 * MAX_BURST_MS goes at once and the rest of the spurt shifts later. When nothing is queued nothing
 * is sent, and the next samples start a new spurt.
 */
export class FramePacer {
  readonly playouts: FramePlayout[] = [];
  /** A talk spurt is scheduled (its first frame may still be in the future). */
  talking = false;
  /** The moment frame 0 of the current talk spurt is due, and the frames sent in it. */
  spurtStart = 0;
  spurtFrames = 0;
  /** How long after its first samples a talk spurt starts (0: at once). */
  startDelayMs = 0;
  readonly frameMs: number;
  private cancelTimer: (() => void) | null = null;
  private closed = false;

  constructor(private readonly options: FramePacerOptions) {
    this.frameMs = (options.format.frameSamples / options.format.sampleRate) * 1000;
  }

  /** A new playout behind the others; `hooks` hear of its samples and changes first. A closed pacer's is already cleared. */
  open(hooks: FramePlayoutHooks | null = null): FramePlayout {
    if (this.closed) {
      const dead = new FramePlayout(this.options.format, 0);
      dead.clear();
      return dead;
    }
    const playout = new FramePlayout(this.options.format, this.options.leadSamples, {
      queued: (p, samples) => {
        hooks?.queued(p, samples);
        // what is due now (the first frame of a reply) leaves now, not at the next tick
        this.tick();
      },
      changed: (p) => hooks?.changed(p),
    });
    this.playouts.push(playout);
    this.armTimer();
    return playout;
  }

  /** Where the wire is: the moment the next frame of the running spurt is due. */
  get wireMs(): number {
    return this.spurtStart + this.spurtFrames * this.frameMs;
  }

  startSpurt(now: number): void {
    this.spurtStart = now + this.startDelayMs;
    this.spurtFrames = 0;
    this.talking = true;
    this.options.spurtStarted?.();
  }

  close(): void {
    this.closed = true;
    for (const p of this.playouts) p.clear();
    this.playouts.length = 0;
    this.stopTimer();
  }

  /** Sends every frame that is due by now. */
  tick(): void {
    const now = this.options.clock.now();
    // Far behind (the event loop stalled): send at most MAX_BURST_MS at once and shift the rest of
    // the spurt later, rather than flood the listener's jitter buffer.
    const behind = now - this.wireMs;
    if (this.talking && behind > MAX_BURST_MS) this.spurtStart += behind - MAX_BURST_MS;
    for (;;) {
      while (this.playouts.length > 0 && this.playouts[0]!.done) this.playouts.shift();
      const current = this.playouts[0];
      if (!current) {
        this.talking = false;
        return this.stopTimer();
      }
      if (!this.talking) {
        // ran dry, or paused: the next samples written (or the resume) start a spurt
        if (!current.frameReady) return;
        this.startSpurt(now);
      }
      const due = this.wireMs;
      if (due > now) return; // the next frame is not due yet
      const frame = current.takeFrame();
      if (!frame) {
        // Synthesis is behind the wire (or the playout is paused): the listener's buffer runs dry;
        // the next samples (or the resume) start a new spurt.
        this.talking = false;
        return;
      }
      this.options.send(frame, this.spurtFrames === 0, due);
      this.spurtFrames++;
    }
  }

  /**
   * The next tick: when the running spurt's next frame is due (each frame leaves on time, and a
   * call wakes the event loop once per frame), or every TICK_MS while no spurt runs (a finished
   * reply's short last frame, a resume, samples left after a clear start one on a tick).
   */
  private armTimer(): void {
    if (this.cancelTimer) return;
    const wait = this.talking ? Math.max(1, Math.ceil(this.wireMs - this.options.clock.now())) : TICK_MS;
    this.cancelTimer = this.options.clock.setTimer(wait, () => {
      this.cancelTimer = null;
      this.tick();
      if (this.playouts.length > 0) this.armTimer();
    });
  }

  private stopTimer(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
  }
}
