import { ServiceError } from '../shared/errors.js';

/** No speech recognizer runs on this server (SVC_ASR_ENGINE=off, or none could start). */
export class TranscriptionUnavailableError extends ServiceError {
  readonly identifier = 'transcription_unavailable';
  constructor(message = 'Speech recognition is not available on this server (no recognizer runs: see SVC_ASR_ENGINE).') {
    super(message);
  }
}
