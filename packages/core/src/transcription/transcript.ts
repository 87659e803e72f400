import type { PcmAudio } from '../shared/audio.js';
import type { RecognitionOptions, RecognitionStream } from '../realtime/ports/audio-pipeline.js';

/** Times in seconds of the input audio. */
export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
  /**
   * Confidence figures in the shape OpenAI-style `verbose_json` segments carry, set by the engine that
   * can honestly compute them (absent otherwise; the presenter documents what it shows then):
   * the mean log-probability of the segment's tokens, Whisper's gzip compression ratio of the text,
   * the probability that the segment holds no speech, and the sampling temperature it was decoded at.
   */
  avgLogprob?: number;
  compressionRatio?: number;
  noSpeechProb?: number;
  temperature?: number;
  /** Whisper's window offset in 10 ms mel frames, and the segment's token ids, where the engine has them. */
  seek?: number;
  tokens?: number[];
}

export interface TranscriptWord {
  word: string;
  start: number;
  end: number;
}

/** A recognizer's detailed result: what `verbose_json` shows. */
export interface DetailedTranscript {
  text: string;
  /** The language decoded in (the hint, or what the model detected), when the engine knows it. */
  language: string | null;
  /** Seconds of input audio. */
  duration: number;
  segments: TranscriptSegment[];
  /** Only where the engine gives word times. */
  words?: TranscriptWord[];
}

/** Recognition of a whole recording (the transcription endpoint): the realtime recognizer, seen whole. */
export interface Transcriber {
  /** Engine and model, e.g. `whisper:whisper-base` or `pocketsphinx` (the `model` of verbose answers is the caller's). */
  readonly name: string;
  transcribe(audio: PcmAudio, options: TranscriptionOptions, signal?: AbortSignal): Promise<DetailedTranscript>;
  /** Recognition while the audio arrives (the recognizer's own stream); without it, live audio is buffered and transcribed whole. */
  openStream?(options: RecognitionOptions & { sampleRate: number }, signal: AbortSignal): RecognitionStream;
  /** True when a stream's `partial` holds the words heard so far while audio arrives (pocketsphinx); false when it stays empty until the end. */
  readonly partialResults?: boolean;
  /** The languages it recognizes (ISO 639-1), when known. */
  readonly languages?: readonly string[];
  /**
   * True when `languages` is all it can hear, so a hint outside it is refused
   * (TranscriptionLanguageUnsupportedError); false or absent when the list is only what is promised (an
   * upstream server that does not say).
   */
  readonly languagesComplete?: boolean;
}

export interface TranscriptionOptions extends RecognitionOptions {
  /** Earlier context (spellings, style): Whisper feeds it as previous tokens; engines without it ignore it. */
  prompt?: string;
  /**
   * Text as it is decoded, for engines that can tell it before the end (pocketsphinx): each call
   * carries the next piece, so the pieces joined are the start of the final text. Engines that
   * cannot stream never call it (the caller sends the whole text once the result is in).
   */
  onText?: (delta: string) => void;
}
