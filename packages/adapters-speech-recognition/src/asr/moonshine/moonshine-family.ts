import { Tensor } from 'onnxruntime-node';
import type { GenerationPlan } from '../seq2seq/greedy-decoder.js';
import type { Seq2SeqFamilyRunner } from '../seq2seq/seq2seq-family.js';
import type { TransformersAsrModel } from '../seq2seq/transformers-model-folder.js';

/**
 * Tokens allowed per second of audio: the Moonshine paper's heuristic against a decoder that loops
 * (transformers.js uses floor(seconds) * 6, which allows nothing below one second; we round up and
 * keep a floor so a one-word turn is not cut).
 */
export const MOONSHINE_TOKENS_PER_SECOND = 6;
const MIN_NEW_TOKENS = 6;
/** 56 ms: anything shorter leaves Moonshine's last convolution nothing to run on. */
export const MOONSHINE_MIN_SAMPLES = 895;

/**
 * Moonshine: the raw 16 kHz waveform is the encoder's input (`input_values` float32 [1, samples],
 * any length from 895 samples), the prompt is the decoder start token alone. Each Moonshine model is one language
 * (English for tiny/base; the model's `language` in config.json where a variant says otherwise),
 * so the `language` hint cannot change the output.
 */
export class MoonshineFamily implements Seq2SeqFamilyRunner {
  /** Windows of 30 s: Moonshine's training clips were shorter; longer audio is cut like Whisper's. */
  readonly windowSamples = 16000 * 30;
  /** The encoder's convolutions (kernels 127, 7, 3; strides 64, 3, 2; no padding) need 127 + 64 * (6 + 3 * 2) samples. */
  readonly minWindowSamples = MOONSHINE_MIN_SAMPLES;
  /** Plain greedy decoding, as Moonshine's own code does (no no-speech token to judge a fallback by). */
  readonly temperatures = [0];
  readonly languages: string[];
  private readonly start: number;
  private readonly eos: number;
  private readonly maxLength: number;

  constructor(model: TransformersAsrModel) {
    const g = model.generation;
    const c = model.config;
    this.start =
      typeof g.decoder_start_token_id === 'number'
        ? g.decoder_start_token_id
        : typeof c.decoder_start_token_id === 'number'
          ? c.decoder_start_token_id
          : 1;
    const eos = Array.isArray(g.eos_token_id) ? g.eos_token_id[0] : (g.eos_token_id ?? c.eos_token_id);
    this.eos = typeof eos === 'number' ? eos : 2;
    this.maxLength =
      typeof g.max_length === 'number' ? g.max_length : typeof c.max_position_embeddings === 'number' ? c.max_position_embeddings : 448;
    this.languages = [typeof c.language === 'string' ? c.language : 'en'];
  }

  encoderFeeds(window: Float32Array): Record<string, Tensor> {
    return {
      input_values: new Tensor('float32', window, [1, window.length]),
      attention_mask: new Tensor('int64', new BigInt64Array(window.length).fill(1n), [1, window.length]),
    };
  }

  async plan(
    _decoder: unknown,
    _encoderHidden: Tensor,
    _languageHint: string | null,
    windowSeconds: number,
  ): Promise<{ plan: GenerationPlan; language: string | null }> {
    const budget = Math.max(MIN_NEW_TOKENS, Math.ceil(windowSeconds * MOONSHINE_TOKENS_PER_SECOND));
    return {
      plan: {
        prompt: [this.start],
        eos: this.eos,
        maxLength: Math.min(this.maxLength, 1 + budget),
        suppress: new Set(),
        beginSuppress: new Set(),
      },
      language: this.languages[0]!,
    };
  }
}
