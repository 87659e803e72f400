import type { Clock } from '../../shared/clock.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import type { EncodedVideoFrame, LiveAvatar, LiveVideoStream } from '../ports/live-avatar.js';

/** Where a call's encoded frames go (the transport's video track), each at the moment it is shown. */
export interface VideoFrameSink {
  send(frame: EncodedVideoFrame, atMs: number): void;
}

export interface LiveAvatarVideoOptions {
  /** The call's media clock (the one the reply audio is scheduled on). */
  clock: Clock;
  /**
   * How long before its time a frame is rendered and encoded (default 120 ms): enough for a
   * render and an encode on a loaded machine. A frame is posed from the audio scheduled when its
   * work starts, so the transport schedules reply audio at least this far ahead, and a barge-in cut
   * reaches the picture within this much (the frames already posed still move).
   */
  leadMs?: number;
  logger?: Logger;
}

/** Counts of a running avatar video (the logs and the benchmark read them). */
export interface LiveAvatarVideoStats {
  framesSent: number;
  /** Frames never made because the renderer or the encoder was behind (the picture holds the previous one). */
  framesSkipped: number;
  /** Frames that were ready only after their time (sent at once, late). */
  framesLate: number;
  /** Render and encode time of the frames sent, ms (the last 250). */
  renderMs: number[];
  encodeMs: number[];
}

const KEPT_TIMINGS = 250;

/**
 * The video of a live avatar on a call: frame n is shown at `start + n / fps`; its work (pose,
 * render, encode) starts `leadMs` before that (frames are made one after another, ahead of the
 * ones waiting to leave) and it is handed to the sink at its time, so its RTP
 * timestamp and its sending moment agree, as the audio's do, and the receiver's sender-report
 * sync holds. Frames are produced one after another; when the work falls behind, frames whose
 * time has passed are skipped before they are rendered (never after encoding: the encoder's
 * reference chain stays whole), so the picture stays on time at a lower rate instead of drifting.
 */
export class LiveAvatarVideo {
  private readonly periodMs: number;
  private readonly leadMs: number;
  private readonly logger: Logger;
  private readonly stop = new AbortController();
  private startMs = 0;
  private running: Promise<void> | null = null;

  readonly stats: LiveAvatarVideoStats = { framesSent: 0, framesSkipped: 0, framesLate: 0, renderMs: [], encodeMs: [] };

  constructor(
    private readonly avatar: LiveAvatar,
    private readonly encoder: LiveVideoStream,
    private readonly sink: VideoFrameSink,
    private readonly options: LiveAvatarVideoOptions,
  ) {
    this.periodMs = 1000 / avatar.fps;
    this.leadMs = options.leadMs ?? 120;
    this.logger = options.logger ?? silentLogger;
  }

  /** Starts the frames: the first is shown `leadMs` from now. */
  start(): void {
    if (this.running) return;
    this.startMs = this.options.clock.now() + this.leadMs;
    this.running = this.run().catch((err: unknown) => {
      if (!this.stop.signal.aborted) this.logger.error({ err: String(err) }, 'live avatar video stopped');
    });
  }

  /**
   * Stops the frames: nothing more is sent, the frame in the works is abandoned (its render is
   * aborted). The avatar and the encoder stay open: their owner closes them.
   */
  close(): void {
    this.stop.abort();
  }

  private async run(): Promise<void> {
    const { clock } = this.options;
    const signal = this.stop.signal;
    let n = 0;
    while (!signal.aborted) {
      // the next frame that can still be ready in time, judging by how long the last ones took
      const now = clock.now();
      const due = Math.max(n, Math.ceil((now + this.workEstimate() - this.startMs) / this.periodMs));
      if (due > n) {
        this.stats.framesSkipped += due - n;
        n = due;
      }
      const atMs = this.startMs + n * this.periodMs;
      await this.sleepUntil(atMs - this.leadMs);
      if (signal.aborted) return;
      const began = clock.now();
      const picture = await this.avatar.frame(atMs, signal);
      const rendered = clock.now();
      const encoded = await this.encoder.encode(picture);
      const done = clock.now();
      if (signal.aborted) return;
      keep(this.stats.renderMs, rendered - began);
      keep(this.stats.encodeMs, done - rendered);
      if (done > atMs + this.periodMs / 2) this.stats.framesLate++;
      // sent at its time while the next frames are already being made
      this.sendAt(encoded, atMs);
      n++;
    }
  }

  /** How long a frame's work takes: the slowest of the last few (render + encode), at most leadMs. */
  private workEstimate(): number {
    const { renderMs, encodeMs } = this.stats;
    let worst = 0;
    for (let i = Math.max(0, renderMs.length - 5); i < renderMs.length; i++) worst = Math.max(worst, renderMs[i]! + encodeMs[i]!);
    return Math.min(this.leadMs, worst);
  }

  private sendAt(frame: EncodedVideoFrame, atMs: number): void {
    const send = (): void => {
      if (this.stop.signal.aborted) return;
      this.sink.send(frame, atMs);
      this.stats.framesSent++;
    };
    const ms = atMs - this.options.clock.now();
    if (ms <= 0) send();
    else this.options.clock.setTimer(ms, send);
  }

  private sleepUntil(atMs: number): Promise<void> {
    const ms = atMs - this.options.clock.now();
    if (ms <= 0 || this.stop.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        cancel();
        this.stop.signal.removeEventListener('abort', done);
        resolve();
      };
      const cancel = this.options.clock.setTimer(ms, done);
      this.stop.signal.addEventListener('abort', done, { once: true });
    });
  }
}

function keep(list: number[], value: number): void {
  list.push(value);
  if (list.length > KEPT_TIMINGS) list.shift();
}
