import type { VoiceActivityDetector, VoiceActivityEvent, VoiceActivityOptions, VoiceActivityStream } from '@svc/core';

/**
 * A voice activity detector whose model loads on first use (the first session that turns turn
 * detection on), or when `warmUp()` is called. Streams opened before the model is ready take
 * their audio at once and hand it, in order, to the real stream once it exists, so a session
 * never loses audio to the load; it only hears its first turn boundaries that much later.
 */
export class LazyVoiceActivityDetector implements VoiceActivityDetector {
  private loading: Promise<VoiceActivityDetector> | null = null;
  private loaded: VoiceActivityDetector | null = null;

  constructor(private readonly load: () => Promise<VoiceActivityDetector>) {}

  /** Loads the model (once); a failed load is tried again by the next call. */
  warmUp(): Promise<VoiceActivityDetector> {
    this.loading ??= this.load().then(
      (detector) => (this.loaded = detector),
      (err: unknown) => {
        this.loading = null;
        throw err;
      },
    );
    return this.loading;
  }

  /** The loaded detector, or null before the first use. */
  get current(): VoiceActivityDetector | null {
    return this.loaded;
  }

  /** The loaded detector's batch counters (null before it loads: the metrics never load it). */
  batchStats(): { frames: number; runs: number } | null {
    return this.loaded?.batchStats?.() ?? null;
  }

  /** Releases the loaded detector (nothing to do when it never loaded). */
  async close(): Promise<void> {
    await this.loaded?.close?.();
  }

  open(options: VoiceActivityOptions): VoiceActivityStream {
    if (this.loaded) return this.loaded.open(options);
    return new PendingVoiceActivityStream(this.warmUp().then((detector) => detector.open(options)));
  }
}

/** A stream whose detector is loading: every call is replayed on the real stream, in order. */
class PendingVoiceActivityStream implements VoiceActivityStream {
  private stream: VoiceActivityStream | null = null;
  /** The calls made so far, chained: each runs on the real stream after the one before. */
  private tail: Promise<unknown>;

  constructor(private readonly opening: Promise<VoiceActivityStream>) {
    // A failed load is reported by every call that waits for it.
    this.tail = opening.then(
      (stream) => (this.stream = stream),
      () => undefined,
    );
  }

  push(samples: Int16Array): VoiceActivityEvent[] | Promise<VoiceActivityEvent[]> {
    if (this.stream && this.idle) return this.stream.push(samples);
    // The caller may reuse its buffer once push() returns: keep a copy until the stream exists.
    const copy = samples.slice();
    return this.then((stream) => stream.push(copy));
  }

  /**
   * Where speech last sounded, as the real stream says once it exists (null before: no segment is
   * open yet). The engine asks after each awaited push, when the replayed calls have caught up.
   * Without it barge-in counted the silence after a backchannel as voiced speech.
   */
  voicedUntilMs(): number | null {
    return this.stream?.voicedUntilMs?.() ?? null;
  }

  reset(): void {
    if (this.stream && this.idle) this.stream.reset();
    else void this.then((stream) => stream.reset()).catch(() => undefined);
  }

  close(): void {
    if (this.stream && this.idle) this.stream.close?.();
    else void this.then((stream) => stream.close?.()).catch(() => undefined);
  }

  /** No replayed call is still waiting. */
  private pending = 0;
  private get idle(): boolean {
    return this.pending === 0;
  }

  private then<T>(call: (stream: VoiceActivityStream) => T | Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(() => this.opening).then(call);
    this.tail = result.then(
      () => this.pending--,
      () => this.pending--,
    );
    return result;
  }
}
