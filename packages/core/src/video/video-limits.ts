import { MAX_DRIVING_AUDIO_SECONDS } from './video-job.js';

/** Limits of the video capability (documented in docs/video.md). */
export const VIDEO_LIMITS = {
  /** Driving speech, from `input` or synthesized from `input_tts` (the spec's 60 s). */
  maxDrivingSeconds: MAX_DRIVING_AUDIO_SECONDS,
  /** A reference photo may be at most this many pixels per side... */
  maxImageSide: 10_000,
  /** ...and this many pixels in all (a 40 MP photo decodes to 120 MB of RGB). */
  maxImagePixels: 40_000_000,
  listDefaultLimit: 20,
  listMaxLimit: 100,
} as const;
