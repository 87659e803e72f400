import type { Principal } from '../auth/api-key.js';
import { EmptyMediaError } from '../media/errors.js';
import { EngineError, InvalidAudioError, ServiceError } from '../shared/errors.js';
import type { AudioCodec } from '../speech/audio-codec.js';
import { ReferenceAudioTooLongError } from '../voices/errors.js';
import { TranscriptionLanguageUnsupportedError, TranscriptionUnavailableError } from './errors.js';
import type { DetailedTranscript, Transcriber } from './transcript.js';
import { bufferedRecognitionStream, LiveTranscription } from './live-transcription.js';

/** Recognizers take 16 kHz; decoding straight to it spares a resampling step. */
export const TRANSCRIPTION_SAMPLE_RATE = 16000;

export interface TranscriptionLimits {
  /** Longest recording accepted (seconds of decoded audio). */
  maxDurationSeconds: number;
}

/** What a client may be told about the recognizer (a Wyoming `info`). */
export interface RecognizerDescription {
  name: string;
  /** ISO 639-1 codes; empty when the engine does not say. */
  languages: readonly string[];
  /** Words are known while the audio arrives (see LiveTranscription.partial). */
  partialResults: boolean;
}

export interface LiveTranscriptionOptions {
  /** ISO 639-1 hint, or null. */
  language: string | null;
  /** The rate of the mono PCM that will be written. */
  sampleRate: number;
  /** Longest recording accepted on this stream; the use case's limit when absent. */
  maxDurationSeconds?: number;
}

export interface TranscribeAudioCommand {
  file: Uint8Array;
  /** ISO 639-1 hint (`en`), or null to let the engine decide. */
  language: string | null;
  /** Earlier context for engines that take it (Whisper); empty or absent: none. */
  prompt?: string;
  /** Receives text while it is decoded, where the engine can stream (see TranscriptionOptions.onText). */
  onText?: (delta: string) => void;
}

/**
 * POST /v1/audio/transcriptions: decodes an uploaded recording (format from its content, decoding
 * stopped just past the duration limit so a small file of compressed silence cannot hold hours),
 * checks it, and runs the server's recognizer on it.
 */
export class TranscribeAudio {
  constructor(
    private readonly codec: AudioCodec,
    private readonly transcriber: Transcriber | null,
    readonly limits: TranscriptionLimits,
  ) {}

  get available(): boolean {
    return this.transcriber !== null;
  }

  /** The recognizer's name, languages and whether it has partial results; null without one. */
  describe(): RecognizerDescription | null {
    const t = this.transcriber;
    return t ? { name: t.name, languages: t.languages ?? [], partialResults: t.partialResults ?? false } : null;
  }

  /**
   * A recording transcribed while it arrives, as mono 16-bit PCM at `options.sampleRate` (the
   * recognizer resamples). Same recognizer and errors as `execute`; the duration limit is checked
   * on every write, before the audio reaches the recognizer.
   */
  openStream(principal: Principal, options: LiveTranscriptionOptions, signal: AbortSignal): LiveTranscription {
    const transcriber = this.transcriber;
    if (!transcriber) throw new TranscriptionUnavailableError();
    this.assertHears(transcriber, options.language);
    const recognition = { language: options.language, principal, sampleRate: options.sampleRate };
    const stream = transcriber.openStream
      ? transcriber.openStream(recognition, signal)
      : bufferedRecognitionStream(transcriber, recognition, signal);
    return new LiveTranscription(
      stream,
      {
        sampleRate: options.sampleRate,
        maxDurationSeconds: options.maxDurationSeconds ?? this.limits.maxDurationSeconds,
        language: options.language,
        recognizer: transcriber.name,
      },
      signal,
    );
  }

  /** Refuses, before any decoding, a language hint the recognizer is known not to hear. */
  private assertHears(transcriber: Transcriber, language: string | null): void {
    const languages = transcriber.languages ?? [];
    // Wyoming clients send region tags (`en_US`, `de-DE`): the language is the primary subtag.
    const primary = language?.split(/[-_]/)[0]!.toLowerCase();
    if (primary && transcriber.languagesComplete && languages.length > 0 && !languages.includes(primary)) {
      throw new TranscriptionLanguageUnsupportedError(transcriber.name, language!, languages);
    }
  }

  async execute(principal: Principal, command: TranscribeAudioCommand, signal?: AbortSignal): Promise<DetailedTranscript> {
    if (!this.transcriber) throw new TranscriptionUnavailableError();
    if (command.file.length === 0) throw new EmptyMediaError('file');
    this.assertHears(this.transcriber, command.language);
    const decoded = await this.codec
      .decode(command.file, TRANSCRIPTION_SAMPLE_RATE, signal, { maxSeconds: this.limits.maxDurationSeconds + 1 })
      .catch((err: unknown) => {
        throw err instanceof InvalidAudioError && err.param === null ? new InvalidAudioError(err.message, 'file') : err;
      });
    const seconds = decoded.samples.length / decoded.sampleRate;
    if (seconds > this.limits.maxDurationSeconds) {
      throw new ReferenceAudioTooLongError(
        `'file' lasts more than ${this.limits.maxDurationSeconds} s, the maximum this server transcribes.`,
        'file',
      );
    }
    if (decoded.samples.length === 0) return { text: '', language: command.language, duration: 0, segments: [] };
    try {
      return await this.transcriber.transcribe(
        { samples: decoded.samples, sampleRate: decoded.sampleRate },
        {
          language: command.language,
          principal,
          ...(command.prompt ? { prompt: command.prompt } : {}),
          ...(command.onText ? { onText: command.onText } : {}),
        },
        signal,
      );
    } catch (err) {
      // A cancelled request (the client left) keeps its abort error; an engine failure says so.
      if (err instanceof ServiceError || signal?.aborted) throw err;
      throw new EngineError(`Speech recognition failed (${this.transcriber.name}).`, err instanceof Error ? err.message : String(err));
    }
  }
}
