import type { VoiceActivityOptions } from '@svc/core';

/** What the segmenter needs, derived from the session's turn detection options. */
export interface SegmenterSettings {
  /** A frame at or above this probability is speech. */
  threshold: number;
  /** Once speaking, a frame must drop below this to count as silence (hysteresis, as Silero's own iterator). */
  silenceThreshold: number;
  prefixPaddingMs: number;
  silenceDurationMs: number;
  minSpeechDurationMs: number;
}

/** Silero's recommended gap between the start and stop thresholds. */
const HYSTERESIS = 0.15;
const MIN_SILENCE_THRESHOLD = 0.01;

/**
 * The detector reports the silence it is asked for: `silence_duration_ms` for server_vad, and a
 * shorter pause for `semantic_vad`, whose engine then judges from the words and the pitch whether
 * the turn ends there or after more silence (packages/core/src/realtime/engine/semantic-turn-end.ts).
 */
export function segmenterSettings(options: VoiceActivityOptions): SegmenterSettings {
  const { threshold, prefixPaddingMs, silenceDurationMs, minSpeechDurationMs } = options;
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeError(`VAD threshold must be in [0, 1], got ${threshold}.`);
  for (const [name, value] of Object.entries({ prefixPaddingMs, silenceDurationMs, minSpeechDurationMs })) {
    if (!(value >= 0) || !Number.isFinite(value)) throw new RangeError(`VAD ${name} must be a finite number >= 0, got ${value}.`);
  }
  return {
    threshold,
    silenceThreshold: Math.max(threshold - HYSTERESIS, MIN_SILENCE_THRESHOLD),
    prefixPaddingMs,
    silenceDurationMs,
    minSpeechDurationMs,
  };
}
