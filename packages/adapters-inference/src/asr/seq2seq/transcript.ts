/** A recognizer's detailed result: what `verbose_json` shows. Times in seconds of the input audio. */
export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
}

export interface TranscriptWord {
  word: string;
  start: number;
  end: number;
}

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
