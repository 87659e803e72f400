import type { ReplyAudioPlayout } from '../ports/media-transport.js';

/** What a playout tells its track: samples to schedule, and that its unsent audio changed (cleared, paused, resumed). */
export interface FramePlayoutHooks {
  queued(playout: FramePlayout, samples: Int16Array): void;
  /** Its unsent samples were dropped, or held back, or may go again: what the listener was told of them is redone. */
  changed(playout: FramePlayout): void;
}

/**
 * One response's audio on a media track that sends fixed frames in real time (a ReplyAudioPlayout):
 * queued samples, what was written and sent, who waits. `write` resolves once what is queued is
 * within the track's lead (backpressure on synthesis); the track takes one frame at a time. Shared
 * by the transports' tracks (WebRTC's Opus, SIP's G.711), which differ only in rate and framing.
 */
export class FramePlayout implements ReplyAudioPlayout {
  chunks: Int16Array[] = [];
  queued = 0;
  written = 0;
  sent = 0;
  finished = false;
  cleared = false;
  /** A barge-in is being judged: nothing is sent (nor shown to the avatar) until `resume()`. */
  paused = false;
  private waiters = new Set<() => void>();

  constructor(
    private readonly format: { sampleRate: number; frameSamples: number },
    private readonly leadSamples: number,
    private readonly hooks: FramePlayoutHooks | null = null,
  ) {}

  async write(samples: Int16Array, signal: AbortSignal): Promise<void> {
    if (this.cleared || this.finished || samples.length === 0) return;
    this.chunks.push(samples);
    this.queued += samples.length;
    this.written += samples.length;
    // while it (or a playout before it) is paused the samples wait unscheduled: the resume schedules them
    this.hooks?.queued(this, samples);
    await this.until(() => this.cleared || this.queued <= this.leadSamples, signal);
  }

  writtenMs(): number {
    return (this.written / this.format.sampleRate) * 1000;
  }

  sentMs(): number {
    return (this.sent / this.format.sampleRate) * 1000;
  }

  finish(): Promise<void> {
    this.finished = true;
    this.wake();
    return this.until(() => this.cleared || this.queued === 0);
  }

  clear(): void {
    const dropped = !this.cleared && this.queued > 0;
    this.cleared = true;
    this.chunks = [];
    this.queued = 0;
    if (dropped) this.hooks?.changed(this);
    this.wake();
  }

  pause(): void {
    if (this.paused || this.done) return;
    this.paused = true;
    this.hooks?.changed(this);
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (!this.cleared) this.hooks?.changed(this);
    this.wake();
  }

  /** Whether the track has nothing more to send of it (all sent, or cleared). */
  get done(): boolean {
    return this.cleared || (this.finished && this.queued === 0);
  }

  /** Whether `takeFrame` has a frame to give: a whole one queued, or the padded last one of a finished playout. */
  get frameReady(): boolean {
    if (this.paused) return false;
    return this.queued >= this.format.frameSamples || (this.finished && this.queued > 0);
  }

  /** Takes one frame; a short last frame is padded with silence once the playout is finished. */
  takeFrame(): Int16Array | null {
    const frameSamples = this.format.frameSamples;
    if (!this.frameReady) return null;
    const frame = new Int16Array(frameSamples);
    let filled = 0;
    while (filled < frameSamples && this.chunks.length > 0) {
      const head = this.chunks[0]!;
      const n = Math.min(head.length, frameSamples - filled);
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
