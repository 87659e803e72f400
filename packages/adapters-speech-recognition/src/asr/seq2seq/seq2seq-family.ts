import type { Tensor } from 'onnxruntime-node';
import type { GenerationPlan, GreedyDecoder } from './greedy-decoder.js';

/** What differs between Whisper and Moonshine: the encoder's input and the decoding plan. */
export interface Seq2SeqFamilyRunner {
  /** Longest audio (16 kHz samples) one encoder pass takes; longer audio is cut into windows. */
  readonly windowSamples: number;
  /**
   * Fewest samples the encoder takes (Moonshine's convolutions need 895); a shorter last window joins
   * the one before it, a shorter whole input is no speech. Whisper pads every window to 30 s: 1.
   */
  readonly minWindowSamples: number;
  /** Temperatures tried in turn (Whisper's fallback); a single 0 is plain greedy decoding. */
  readonly temperatures: readonly number[];
  readonly languages: string[];
  encoderFeeds(window: Float32Array): Record<string, Tensor>;
  plan(
    decoder: GreedyDecoder,
    encoderHidden: Tensor,
    languageHint: string | null,
    windowSeconds: number,
    prompt?: string,
  ): Promise<{ plan: GenerationPlan; language: string | null }>;
}
