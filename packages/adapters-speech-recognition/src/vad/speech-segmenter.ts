import type { VoiceActivityEvent } from '@svc/core';
import type { SegmenterSettings } from './segmenter-settings.js';

/**
 * Turns per-frame speech probabilities into turn boundaries. Pure bookkeeping, no audio:
 *
 * - A segment starts once frames at or above `threshold` have lasted `minSpeechDurationMs` without a
 *   break; `speech_started` reports the first of those frames moved back by `prefixPaddingMs`
 *   (never below 0), so the padded start covers the onset the model needs a frame or two to see.
 * - It stops once frames have stayed below `silenceThreshold` for `silenceDurationMs` (frames between
 *   the two thresholds neither start nor break the silence); `speech_stopped` reports where that
 *   silence began, i.e. the end of the speech, not the moment the silence was confirmed.
 */
export class SpeechSegmenter {
  private speaking = false;
  /** Start of the current unbroken run of speech frames while not speaking. */
  private candidateStartMs: number | null = null;
  /** Start of the current silence while speaking. */
  private silenceStartMs: number | null = null;
  /** End of the last frame at or above `threshold` in the current segment (null: not speaking). */
  private lastVoicedEndMs: number | null = null;

  constructor(private readonly settings: SegmenterSettings) {}

  /** Feeds one frame covering [startMs, endMs); returns the boundary it completes, if any. */
  next(probability: number, startMs: number, endMs: number): VoiceActivityEvent | null {
    const s = this.settings;
    if (!this.speaking) {
      if (probability < s.threshold) {
        this.candidateStartMs = null;
        return null;
      }
      this.candidateStartMs ??= startMs;
      if (endMs - this.candidateStartMs < s.minSpeechDurationMs) return null;
      const audioStartMs = Math.max(0, this.candidateStartMs - s.prefixPaddingMs);
      this.speaking = true;
      this.candidateStartMs = null;
      this.silenceStartMs = null;
      this.lastVoicedEndMs = endMs;
      return { type: 'speech_started', audioStartMs };
    }
    if (probability >= s.threshold) {
      this.silenceStartMs = null;
      this.lastVoicedEndMs = endMs;
      return null;
    }
    if (probability < s.silenceThreshold) this.silenceStartMs ??= startMs;
    if (this.silenceStartMs === null || endMs - this.silenceStartMs < s.silenceDurationMs) return null;
    const audioEndMs = this.silenceStartMs;
    this.speaking = false;
    this.silenceStartMs = null;
    this.lastVoicedEndMs = null;
    return { type: 'speech_stopped', audioEndMs };
  }

  /** Where the speech of the open segment last sounded (ms); null between segments. */
  get voicedUntilMs(): number | null {
    return this.lastVoicedEndMs;
  }

  reset(): void {
    this.lastVoicedEndMs = null;
    this.speaking = false;
    this.candidateStartMs = null;
    this.silenceStartMs = null;
  }
}
