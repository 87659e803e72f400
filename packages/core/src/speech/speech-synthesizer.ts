import type { Prosody } from './prosody.js';

/** A voice an engine offers out of the box (the `voice` presets of the speech API). */
export interface PresetVoice {
  /** Public preset name used in the `voice` field, e.g. `slt` or `espeak-fr`. */
  name: string;
  /** Engine that renders it (matches SpeechSynthesizer.engine). */
  engine: string;
  /** The engine's own voice identifier. */
  engineVoice: string;
  /** BCP-47 language tag, lower case (e.g. `en-us`, `fr`, `pt-br`). */
  language: string;
  gender: 'female' | 'male' | 'neutral';
  description: string;
}

export interface WordTiming {
  word: string;
  /** Seconds from the start of the audio the timing belongs to. */
  start: number;
  end: number;
}

export interface SynthesisRequest {
  /** Plain text of one sentence or clause, already normalized; no tags. */
  text: string;
  voice: PresetVoice;
  prosody: Prosody;
  /** The rate the returned samples must have (the adapter resamples). */
  sampleRate: number;
  /** Ask for word timings (engines that cannot time words estimate them). */
  wordTimings: boolean;
  /**
   * Who asked (the API key's id; absent for the server's own speech): an engine that queues work
   * serves the askers in turn, so one key's burst does not hold another key's sentence behind it.
   */
  tenant?: string;
}

export interface SynthesisResult {
  samples: Int16Array;
  sampleRate: number;
  words: WordTiming[];
}

/** Audio of one synthesis as the engine produces it. */
export interface SynthesisStream {
  /** PCM at the request's rate, in order. */
  chunks: AsyncIterable<Int16Array>;
  /** Word timings relative to the start of this synthesis; complete once `chunks` has ended. */
  words(): WordTiming[];
}

/** A text-to-speech engine. Neural engines plug in here beside the embedded ones. */
export interface SpeechSynthesizer {
  readonly engine: string;
  /** The presets this engine offers (known after the adapter's async creation). */
  voices(): PresetVoice[];
  synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult>;
  /**
   * Optional: the audio of one sentence piece by piece as it is produced (e.g. an upstream server's
   * response as its bytes arrive), so streamed speech starts before the sentence is complete.
   */
  synthesizeStream?(request: SynthesisRequest, signal?: AbortSignal): SynthesisStream;
  /**
   * A voice the engine builds on request rather than lists (e.g. a Kokoro blend
   * `kokoro-af_bella+af_sky`); undefined when the name is not one of its voices.
   */
  resolveVoice?(name: string): PresetVoice | undefined;
  /** The models it has loaded, with their size (GET /v1/models, the svc_neural_model_bytes gauge); neural engines only. */
  loadedModels?(): { engine: string; model: string; bytes: number }[];
  /** Releases workers / WASM instances. */
  close?(): Promise<void>;
}

/** Guesses the language of a text; returns a lower-case ISO 639-1 code (or BCP-47 tag) or null. */
export interface LanguageDetector {
  detect(text: string): string | null;
}
