import type { Clock } from '../../shared/clock.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import type { EncodedVideoFrame, LiveAvatar, LiveVideoStream } from '../ports/live-avatar.js';

/** Where a call's encoded frames go (the transport's video track), each at the moment it is shown. */
export interface VideoFrameSink {
  send(frame: EncodedVideoFrame, atMs: number): void;
}

/** One frame handed to the sink: the moment it shows, when its pose was taken, and when it left. */
export interface SentVideoFrame {
  atMs: number;
  /** When its work began: its pose used the reply audio scheduled by then. */
  posedAt: number;
  sentAt: number;
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
  /** Told of every frame as it is handed to the sink (the call's figures). */
  onSent?: (frame: SentVideoFrame) => void;
  logger?: Logger;
}

/** Counts of a running avatar video (the logs and the benchmark read them). */
export interface LiveAvatarVideoStats {
  framesSent: number;
  /** Frames never made because the renderer or the encoder was behind (the picture holds the previous one). */
  framesSkipped: number;
  /** Frames that were ready only after their time (sent at once, late). */
  framesLate: number;
  /** Render and encode (wall) time of the frames sent, ms (the last 250). */
  renderMs: number[];
  encodeMs: number[];
  /** How long after its time each frame reached the sink, ms (the last 250): timer and event-loop lag. */
  sendLagMs: number[];
}

const KEPT_TIMINGS = 250;
/** Recent frames the skip estimate looks at. */
const ESTIMATE_FRAMES = 9;

/**
 * The video of a live avatar on a call: frame n is shown at `start + n / fps` (a drift-free clock:
 * every time is computed from the start, never from the previous frame); its work starts `leadMs`
 * before that and it is handed to the sink at its time, so its RTP timestamp and its sending moment
 * agree, as the audio's do, and the receiver's sender-report sync holds.
 *
 * Render and encode overlap: frame n+1 is posed and rendered (the avatar's thread) while frame n is
 * encoded (the encoder's process), so the rate is bound by the slower of the two, not their sum
 * (on a loaded 2-core machine a 640x480 frame's render and encode, each shorter than a frame, took
 * longer than a frame together: serially the rate fell short, overlapped it held; docs/live-avatar.md).
 * One frame at most waits in the encoder.
 *
 * When the work falls behind, frames that can no longer be ready in time (judging by the median of
 * the last frames' work) are skipped before they are rendered, never after encoding (the encoder's
 * reference chain stays whole), so the picture stays on time at a lower rate instead of drifting.
 * A single slow frame costs the frames its delay covers, not the following ones.
 */
export class LiveAvatarVideo {
  private readonly periodMs: number;
  private readonly leadMs: number;
  private readonly logger: Logger;
  private readonly stop = new AbortController();
  private startMs = 0;
  private running: Promise<void> | null = null;
  /** Encoded frames waiting for their time, in order. */
  private readonly outbox: { frame: EncodedVideoFrame; atMs: number; posedAt: number }[] = [];
  private outboxTimer: (() => void) | null = null;

  readonly stats: LiveAvatarVideoStats = { framesSent: 0, framesSkipped: 0, framesLate: 0, renderMs: [], encodeMs: [], sendLagMs: [] };

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
    this.outboxTimer?.();
    this.outboxTimer = null;
    this.outbox.length = 0;
  }

  private async run(): Promise<void> {
    const { clock } = this.options;
    const signal = this.stop.signal;
    /** The previous frame's encode (its failure ends the video). */
    let encoding: Promise<void> = Promise.resolve();
    let n = 0;
    while (!signal.aborted) {
      // the next frame that can still be ready in time
      const due = Math.max(n, Math.ceil((clock.now() + this.workEstimate() - this.startMs) / this.periodMs));
      if (due > n) {
        this.stats.framesSkipped += due - n;
        n = due;
      }
      const atMs = this.startMs + n * this.periodMs;
      await this.sleepUntil(atMs - this.leadMs);
      if (signal.aborted) return;
      const posedAt = clock.now();
      const picture = await this.avatar.frame(atMs, signal);
      if (signal.aborted) return;
      keep(this.stats.renderMs, clock.now() - posedAt);
      // the previous frame leaves the encoder before this one enters (one frame in it at a time)
      await encoding;
      if (signal.aborted) return;
      const submitted = clock.now();
      encoding = this.encoder.encode(picture).then((encoded) => {
        const done = clock.now();
        keep(this.stats.encodeMs, done - submitted);
        if (done > atMs + this.periodMs / 2) this.stats.framesLate++;
        this.post(encoded, atMs, posedAt);
      });
      encoding.catch(() => undefined); // observed by the next frame's await
      n++;
    }
  }

  /** How long a frame's work takes (median render + median encode of the last frames), at most leadMs. */
  private workEstimate(): number {
    return Math.min(this.leadMs, recentMedian(this.stats.renderMs) + recentMedian(this.stats.encodeMs));
  }

  /** Queues an encoded frame for its time; frames leave in order, each at its time or at once if late. */
  private post(frame: EncodedVideoFrame, atMs: number, posedAt: number): void {
    if (this.stop.signal.aborted) return;
    this.outbox.push({ frame, atMs, posedAt });
    if (!this.outboxTimer) this.drain();
  }

  private drain(): void {
    this.outboxTimer = null;
    const { clock } = this.options;
    while (this.outbox.length > 0 && !this.stop.signal.aborted) {
      const next = this.outbox[0]!;
      const now = clock.now();
      if (next.atMs > now) {
        this.outboxTimer = clock.setTimer(next.atMs - now, () => this.drain());
        return;
      }
      this.outbox.shift();
      this.sink.send(next.frame, next.atMs);
      this.stats.framesSent++;
      keep(this.stats.sendLagMs, now - next.atMs);
      this.options.onSent?.({ atMs: next.atMs, posedAt: next.posedAt, sentAt: now });
    }
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

function recentMedian(list: readonly number[]): number {
  if (list.length === 0) return 0;
  const recent = list.slice(-ESTIMATE_FRAMES).sort((a, b) => a - b);
  return recent[Math.floor(recent.length / 2)]!;
}
