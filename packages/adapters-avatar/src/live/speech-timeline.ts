import { resampleInt16 } from '@svc/adapters-runtime';

/** One chunk of reply audio on the call's timeline. */
interface Segment {
  startMs: number;
  samples: Int16Array;
}

/** How much audio before the oldest frame still wanted is kept (the head's nod looks back 250 ms). */
const KEEP_MS = 1000;

/**
 * The reply audio of a live call on its media clock: chunks arrive ahead of their playback time,
 * in order; a cut (barge-in) drops everything from a moment on. Frames read windows of it; where
 * nothing was scheduled there is silence. One sample rate per timeline (chunks at another rate are
 * resampled to it).
 */
export class SpeechTimeline {
  private segments: Segment[] = [];
  private rate = 0;

  get sampleRate(): number {
    return this.rate || 48000;
  }

  /** Where the scheduled audio ends (ms), or -Infinity before any. */
  get endMs(): number {
    const last = this.segments[this.segments.length - 1];
    return last ? last.startMs + (last.samples.length / this.rate) * 1000 : -Infinity;
  }

  push(samples: Int16Array, sampleRate: number, atMs: number): void {
    if (samples.length === 0) return;
    if (this.rate === 0) this.rate = sampleRate;
    const chunk = sampleRate === this.rate ? samples.slice() : resampleInt16(samples, sampleRate, this.rate);
    // a chunk scheduled over audio already there replaces it from its start (a transport that
    // re-times a reply after a stall)
    this.cut(atMs);
    this.segments.push({ startMs: atMs, samples: chunk });
  }

  /** Drops the audio from `atMs` on. */
  cut(atMs: number): void {
    const kept: Segment[] = [];
    for (const s of this.segments) {
      if (s.startMs >= atMs) continue;
      const keep = Math.round(((atMs - s.startMs) / 1000) * this.rate);
      kept.push(keep >= s.samples.length ? s : { startMs: s.startMs, samples: s.samples.subarray(0, keep) });
    }
    this.segments = kept;
  }

  /** Forgets audio that ended more than KEEP_MS before `atMs`. */
  forget(atMs: number): void {
    const horizon = atMs - KEEP_MS;
    this.segments = this.segments.filter((s) => s.startMs + (s.samples.length / this.rate) * 1000 > horizon);
  }

  /** The samples of [fromMs, fromMs + length / rate), silence where none were scheduled. */
  window(fromMs: number, length: number): Int16Array {
    const out = new Int16Array(length);
    const rate = this.sampleRate;
    for (const s of this.segments) {
      const offset = Math.round(((s.startMs - fromMs) / 1000) * rate);
      const from = Math.max(0, offset);
      const to = Math.min(length, offset + s.samples.length);
      if (to > from) out.set(s.samples.subarray(from - offset, to - offset), from);
    }
    return out;
  }
}
