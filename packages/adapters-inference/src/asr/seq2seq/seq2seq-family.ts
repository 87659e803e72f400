import type { Tensor } from 'onnxruntime-node';
import type { GenerationPlan, GreedyDecoder } from './greedy-decoder.js';

/** What differs between Whisper and Moonshine: the encoder's input and the decoding plan. */
export interface Seq2SeqFamilyRunner {
  /** Longest audio (16 kHz samples) one encoder pass takes; longer audio is cut into windows. */
  readonly windowSamples: number;
  readonly languages: string[];
  encoderFeeds(window: Float32Array): Record<string, Tensor>;
  plan(decoder: GreedyDecoder, encoderHidden: Tensor, languageHint: string | null, windowSeconds: number, prompt?: string): Promise<{ plan: GenerationPlan; language: string | null }>;
}
