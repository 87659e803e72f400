import type { OutputSpec } from '../output-audio.js';

/** One espeak-ng run, as sent to the espeak worker thread. */
export interface EspeakJobRequest {
  /** espeak voice identifier from list_voices(), e.g. `roa/fr`. */
  voice: string;
  /** SSML-escaped text. */
  text: string;
  rate: number;
  pitch: number;
  range: number;
  output: OutputSpec;
}

/** The espeak events word timing needs (others are dropped in the worker). */
export interface EspeakTimingEvent {
  /** `phoneme`: a spoken phoneme of the current word (where words espeak joined are split); `pause`: a silent one. */
  type: 'word' | 'phoneme' | 'pause' | 'end' | 'sentence';
  /** 1-based code point position in the escaped text. */
  textPosition: number;
  /** Milliseconds from the start of the audio. */
  audioMs: number;
}

export interface EspeakJobResult {
  /** At the requested rate, volume applied. */
  samples: Int16Array;
  events: EspeakTimingEvent[];
  /** Length of espeak's own rendering, the time base of the events. */
  durationSeconds: number;
}

/** What the worker reports once loaded. */
export interface EspeakWorkerInfo {
  sampleRate: number;
  voices: { name: string; identifier: string; languages: { priority: number; name: string }[] }[];
}
