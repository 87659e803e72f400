/**
 * Plays little-endian PCM16 mono as it arrives: each chunk becomes an AudioBuffer scheduled right
 * after the previous one, so playback starts with the first chunk instead of the whole file.
 */
export class PcmStreamPlayer {
  private nextStart = 0;
  private carry: number | null = null;
  private readonly sources = new Set<AudioBufferSourceNode>();
  /** performance.now() at which the first sample is heard, once a chunk has been scheduled. */
  firstSoundAt: number | null = null;
  /** Samples scheduled so far. */
  samples = 0;
  /** AudioContext time of the first sample. */
  private firstStart: number | null = null;

  constructor(
    private readonly ctx: AudioContext,
    private readonly sampleRate: number,
  ) {}

  /** Schedules a chunk; returns the time (performance.now() clock) its first sample will sound. */
  push(bytes: Uint8Array): number | null {
    let data = bytes;
    if (this.carry !== null) {
      const joined = new Uint8Array(bytes.length + 1);
      joined[0] = this.carry;
      joined.set(bytes, 1);
      data = joined;
      this.carry = null;
    }
    if (data.length % 2 === 1) {
      this.carry = data[data.length - 1]!;
      data = data.subarray(0, data.length - 1);
    }
    const count = data.length / 2;
    if (count === 0) return null;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const buffer = this.ctx.createBuffer(1, count, this.sampleRate);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < count; i++) channel[i] = view.getInt16(i * 2, true) / 32768;
    const source = this.ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(this.ctx.destination);
    // A small lead keeps chunks that arrive a little late from clicking.
    const start = Math.max(this.ctx.currentTime + 0.03, this.nextStart);
    source.start(start);
    this.nextStart = start + buffer.duration;
    this.sources.add(source);
    source.onended = () => this.sources.delete(source);
    this.samples += count;
    this.firstStart ??= start;
    const soundsAt = performance.now() + (start - this.ctx.currentTime) * 1000;
    this.firstSoundAt ??= soundsAt;
    return soundsAt;
  }

  /** True while scheduled audio has not finished. */
  get playing(): boolean {
    return this.nextStart > this.ctx.currentTime;
  }

  /** Milliseconds of audio scheduled so far. */
  get durationMs(): number {
    return (this.samples / this.sampleRate) * 1000;
  }

  /** Milliseconds of the scheduled audio heard so far (where a barge-in cut it). */
  playedMs(): number {
    if (this.firstStart === null) return 0;
    return Math.round(Math.min(this.durationMs, Math.max(0, (this.ctx.currentTime - this.firstStart) * 1000)));
  }

  /**
   * Holds playback where it is (the server paused the reply while it judges speech over it). The
   * player's context is its own (shared with other players only, never with the microphone), so
   * suspending it stops every scheduled chunk exactly there; `resume()` goes on from there.
   */
  pause(): Promise<void> {
    return this.ctx.suspend();
  }

  resume(): Promise<void> {
    return this.ctx.resume();
  }

  /** Silences everything scheduled (barge-in, a new request). */
  stop(): void {
    // A stop while paused: the next reply must be audible.
    if (this.ctx.state === 'suspended') void this.ctx.resume();
    for (const s of this.sources) {
      try {
        s.stop();
      } catch {
        // already stopped
      }
    }
    this.sources.clear();
    this.nextStart = 0;
    this.carry = null;
  }

  /** Resolves when the scheduled audio has played out. */
  async finished(): Promise<void> {
    while (this.playing) await new Promise((r) => setTimeout(r, 50));
  }
}

let shared: AudioContext | null = null;

/** One AudioContext for playback, resumed inside a click (browsers start it suspended). */
export async function playbackContext(): Promise<AudioContext> {
  shared ??= new AudioContext({ latencyHint: 'interactive' });
  if (shared.state === 'suspended') await shared.resume();
  return shared;
}
