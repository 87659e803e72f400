import { ServiceError } from '../shared/errors.js';

/**
 * A `language` the server's recognizer cannot hear (pocketsphinx is English only): decoding would
 * return words of its own language that were never said, so the request is refused before any work.
 */
export class TranscriptionLanguageUnsupportedError extends ServiceError {
  readonly identifier = 'transcription_language_unsupported';
  constructor(recognizer: string, language: string, languages: readonly string[]) {
    const hears = languages.length > 5 ? `${languages.length} languages` : languages.join(', ');
    super(
      `The speech recognizer of this server (${recognizer}) hears only ${hears}, not '${language}'. Omit 'language', or have the operator install a multilingual recognizer: npm run models -- pull whisper-base, then restart with SVC_ASR_ENGINE=whisper:whisper-base (docs/transcription.md).`,
      'language',
    );
  }
}

/** No speech recognizer runs on this server (SVC_ASR_ENGINE=off, or none could start). */
export class TranscriptionUnavailableError extends ServiceError {
  readonly identifier = 'transcription_unavailable';
  constructor(message = 'Speech recognition is not available on this server (no recognizer runs: see SVC_ASR_ENGINE).') {
    super(message);
  }
}
