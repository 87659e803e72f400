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
