import { Tensor } from 'onnxruntime-node';
import { WhisperLogMel, WHISPER_CHUNK_SAMPLES, WHISPER_FRAMES } from '../features/whisper-log-mel.js';
import type { GreedyDecoder, GenerationPlan } from '../seq2seq/greedy-decoder.js';
import type { TransformersAsrModel } from '../seq2seq/transformers-model-folder.js';
import { whisperLanguageCode, whisperPlan, whisperSpecialTokens, type WhisperSpecialTokens } from './whisper-prompt.js';
import type { TokenDecoder } from '../seq2seq/token-decoder.js';
import type { Seq2SeqFamilyRunner } from '../seq2seq/seq2seq-family.js';
import { WHISPER_FALLBACK } from '../seq2seq/decode-fallback.js';

/**
 * Whisper: 30 s windows of log-mel features (`input_features` float32 [1, mel bins, 3000]); the
 * language token from the session's hint, else detected by the model from its first decoder pass
 * (the language token it scores highest after <|startoftranscript|>), as Whisper itself does.
 */
export class WhisperFamily implements Seq2SeqFamilyRunner {
  readonly windowSamples = WHISPER_CHUNK_SAMPLES;
  readonly minWindowSamples = 1;
  readonly temperatures = WHISPER_FALLBACK.temperatures;
  private readonly features: WhisperLogMel;
  private readonly special: WhisperSpecialTokens;
  private readonly tokens: TokenDecoder;

  constructor(model: TransformersAsrModel) {
    this.tokens = model.tokens;
    const melBins = typeof model.config.num_mel_bins === 'number' ? model.config.num_mel_bins : 80;
    this.features = new WhisperLogMel(melBins);
    this.special = whisperSpecialTokens(model.generation, model.config, model.tokens);
  }

  get languages(): string[] {
    return this.special.languages.size > 0 ? [...this.special.languages.keys()] : ['en'];
  }

  encoderFeeds(window: Float32Array): Record<string, Tensor> {
    const data = this.features.compute(window);
    return { input_features: new Tensor('float32', data, [1, this.features.melBins, WHISPER_FRAMES]) };
  }

  async plan(
    decoder: GreedyDecoder,
    encoderHidden: Tensor,
    languageHint: string | null,
    _windowSeconds: number,
    prompt?: string,
  ): Promise<{ plan: GenerationPlan; language: string | null }> {
    const previous = this.previousTokens(prompt);
    const languages = this.special.languages;
    if (languages.size === 0) return { plan: whisperPlan(this.special, null, previous), language: 'en' };
    const hinted = languageHint ? whisperLanguageCode(languageHint) : null;
    let language = hinted && languages.has(hinted) ? hinted : null;
    if (!language) {
      const logits = await decoder.nextLogits(encoderHidden, [this.special.startOfTranscript]);
      let best = -Infinity;
      for (const [code, id] of languages) {
        if (logits[id]! > best) {
          best = logits[id]!;
          language = code;
        }
      }
    }
    return { plan: whisperPlan(this.special, languages.get(language!)!, previous), language };
  }

  /** A prompt's tokens, as Whisper encodes it: " " + the trimmed text. None when the model has no <|startofprev|>. */
  private previousTokens(prompt: string | undefined): number[] {
    const text = prompt?.trim();
    if (!text || this.special.startOfPrev === null) return [];
    return this.tokens.encode(` ${text}`);
  }
}
