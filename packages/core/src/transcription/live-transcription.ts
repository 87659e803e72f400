import { concatPcm } from '../shared/audio.js';
import { EngineError, InvalidRequestError, ServiceError } from '../shared/errors.js';
import type { RecognitionOptions, RecognitionStream } from '../realtime/ports/audio-pipeline.js';
import { ReferenceAudioTooLongError } from '../voices/errors.js';
import type { Transcriber } from './transcript.js';

export interface LiveTranscriptionResult {
  text: string;
  /** The language hint it was opened with (the stream does not report a detected one). */
  language: string | null;
  /** Seconds of audio written. */
  duration: number;
}

/**
 * One recording transcribed while it arrives (a Wyoming `audio-start` ... `audio-stop`): audio is
 * written as it comes, in the rate the stream was opened with; `partial` is the recognizer's
 * hypothesis so far where it has one; `finish()` gives the transcript. The duration limit is
 * checked before each write is passed on, so audio past it is never decoded; passing it, like
 * `cancel()` or the signal, releases the recognizer at once.
 */
export class LiveTranscription {
  private samples = 0;
  private ended = false;

  constructor(
    private readonly stream: RecognitionStream,
    private readonly options: { sampleRate: number; maxDurationSeconds: number; language: string | null; recognizer: string },
    private readonly signal: AbortSignal,
  ) {}

  /** Seconds of audio written so far. */
  get seconds(): number {
    return this.samples / this.options.sampleRate;
  }

  get partial(): string {
    return this.ended ? '' : this.stream.partial;
  }

  write(samples: Int16Array): void {
    if (this.ended) throw new InvalidRequestError('This transcription has already ended.');
    const max = this.options.maxDurationSeconds;
    if ((this.samples + samples.length) / this.options.sampleRate > max) {
      this.cancel();
      throw new ReferenceAudioTooLongError(`The audio lasts more than ${max} s, the maximum this server transcribes at once.`, 'audio');
    }
    this.samples += samples.length;
    this.stream.write(samples);
  }

  async finish(): Promise<LiveTranscriptionResult> {
    if (this.ended) throw new InvalidRequestError('This transcription has already ended.');
    const result = (text: string): LiveTranscriptionResult => ({ text, language: this.options.language, duration: this.seconds });
    if (this.samples === 0) {
      this.cancel();
      return result('');
    }
    this.ended = true;
    try {
      return result((await this.stream.finish()).text);
    } catch (err) {
      // A cancelled recording keeps its abort error; an engine failure says so.
      if (err instanceof ServiceError || this.signal.aborted) throw err;
      throw new EngineError(`Speech recognition failed (${this.options.recognizer}).`, err instanceof Error ? err.message : String(err));
    }
  }

  cancel(): void {
    if (this.ended) return;
    this.ended = true;
    this.stream.cancel();
  }
}

/** A recognizer without a stream of its own: the audio is kept and transcribed whole at the end. */
export function bufferedRecognitionStream(
  transcriber: Transcriber,
  options: RecognitionOptions & { sampleRate: number },
  signal: AbortSignal,
): RecognitionStream {
  let parts: Int16Array[] = [];
  return {
    write: (samples) => void parts.push(samples),
    get partial() {
      return '';
    },
    async finish() {
      const samples = concatPcm(parts);
      parts = [];
      return { text: (await transcriber.transcribe({ samples, sampleRate: options.sampleRate }, options, signal)).text };
    },
    cancel: () => void (parts = []),
  };
}
