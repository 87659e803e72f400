import type { LiveAvatarVideoStats, SentVideoFrame } from '@svc/core';

/** One talk spurt of reply audio and the first frame that shows it. */
export interface SpurtFirstFrame {
  /** The media-clock moment the spurt's first audio plays (its first RTP packet's time). */
  audioAtMs: number;
  /** The first frame posed after that audio was scheduled whose 40 ms include it: the moment it shows. */
  frameAtMs: number;
  /** frameAtMs - audioAtMs: the picture's delay on the RTP timeline (down to -40: the frame in which the audio starts). */
  frameAfterAudioMs: number;
  /** When that frame left minus when the spurt's first audio was due (the wire's view, with timer lag). */
  sentAfterAudioMs: number;
}

/** What a call's video did (the logs, the Chromium test and the benchmark read it). */
export interface CallVideoStats {
  framesSent: number;
  framesSkipped: number;
  framesLate: number;
  renderP50Ms: number | null;
  encodeP50Ms: number | null;
  sendLagP50Ms: number | null;
  sendLagP95Ms: number | null;
  /** The frames sent in the last minute: the moment each shows and when it left (media clock). */
  sent: { atMs: number; sentAt: number }[];
  /** Each talk spurt of reply audio (a reply, or a reply resumed after a pause) and its first frame. */
  replies: SpurtFirstFrame[];
}

const KEPT_FRAMES = 25 * 60;
const KEPT_SPURTS = 100;

/**
 * The figures of a call's video across its runs (a keyframe request restarts the frames on a
 * fresh encoder): counts, timings, the frames sent, and for each talk spurt of the reply audio the
 * first frame whose pose was taken with that audio known (frames are posed `leadMs` before they
 * show, from the audio scheduled by then) and whose 40 ms include its first moment.
 */
export class CallVideoFigures {
  private totals = { framesSent: 0, framesSkipped: 0, framesLate: 0 };
  private lastRun: LiveAvatarVideoStats | null = null;
  private readonly sent: { atMs: number; sentAt: number }[] = [];
  private readonly replies: SpurtFirstFrame[] = [];
  private audioEndMs = -Infinity;
  private pending: { audioAtMs: number; scheduledAt: number } | null = null;

  /** Reply audio scheduled at `atMs` (told at `now`): a spurt starts where it does not continue the last. */
  audioScheduled(atMs: number, durationMs: number, now: number): void {
    if (Math.abs(atMs - this.audioEndMs) > 1) this.pending = { audioAtMs: atMs, scheduledAt: now };
    this.audioEndMs = atMs + durationMs;
  }

  audioCut(atMs: number): void {
    if (this.pending && atMs <= this.pending.audioAtMs) this.pending = null; // never played
    this.audioEndMs = Math.min(this.audioEndMs, atMs);
  }

  /** A frame left; it shows [atMs, atMs + periodMs). */
  frameSent(frame: SentVideoFrame, periodMs: number): void {
    this.sent.push({ atMs: frame.atMs, sentAt: frame.sentAt });
    if (this.sent.length > KEPT_FRAMES) this.sent.shift();
    const p = this.pending;
    if (!p || frame.posedAt < p.scheduledAt || frame.atMs + periodMs <= p.audioAtMs) return;
    this.pending = null;
    this.replies.push({
      audioAtMs: p.audioAtMs,
      frameAtMs: frame.atMs,
      frameAfterAudioMs: frame.atMs - p.audioAtMs,
      sentAfterAudioMs: frame.sentAt - p.audioAtMs,
    });
    if (this.replies.length > KEPT_SPURTS) this.replies.shift();
  }

  /** A run of frames ended (the video stopped or restarts): its counts join the totals. */
  runEnded(stats: LiveAvatarVideoStats): void {
    this.totals.framesSent += stats.framesSent;
    this.totals.framesSkipped += stats.framesSkipped;
    this.totals.framesLate += stats.framesLate;
    this.lastRun = stats;
  }

  /** The figures so far, with the running frames' `current` counts. */
  snapshot(current?: LiveAvatarVideoStats): CallVideoStats {
    const timings = current ?? this.lastRun;
    return {
      framesSent: this.totals.framesSent + (current?.framesSent ?? 0),
      framesSkipped: this.totals.framesSkipped + (current?.framesSkipped ?? 0),
      framesLate: this.totals.framesLate + (current?.framesLate ?? 0),
      renderP50Ms: percentile(timings?.renderMs, 50),
      encodeP50Ms: percentile(timings?.encodeMs, 50),
      sendLagP50Ms: percentile(timings?.sendLagMs, 50),
      sendLagP95Ms: percentile(timings?.sendLagMs, 95),
      sent: [...this.sent],
      replies: [...this.replies],
    };
  }
}

function percentile(values: readonly number[] | undefined, p: number): number | null {
  if (!values || values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! * 10) / 10;
}
