import { ServiceError } from '../shared/errors.js';

/** The clip decodes but holds too little (voiced) speech to measure a speaker from. */
export class ReferenceAudioTooShortError extends ServiceError {
  readonly identifier = 'audio_too_short';
}

export class ReferenceAudioTooLongError extends ServiceError {
  readonly identifier = 'audio_too_long';
}

/** The clip decodes but is silence (or so quiet nothing can be measured). */
export class ReferenceAudioSilentError extends ServiceError {
  readonly identifier = 'audio_silent';
}

/**
 * POST /v1/audio/voices while the calling key already stores its maximum of voices
 * (SVC_VOICES_MAX_PER_KEY). Each voice keeps its reference audio (up to 25 MB) and a row; without a
 * cap one key could fill the disk. Decided before the body is read: HTTP 429, as the other per-key
 * caps; no Retry-After, since time alone frees nothing: deleting a voice does.
 */
export class VoiceLimitError extends ServiceError {
  readonly identifier = 'voice_limit_exceeded';
  constructor(max: number) {
    super(
      `This API key already has ${max} registered voice${max === 1 ? '' : 's'}, its limit. Delete one (DELETE /v1/audio/voices/{voice}) before registering another.`,
    );
  }
}
