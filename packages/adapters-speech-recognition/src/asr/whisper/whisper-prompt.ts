import type { GenerationPlan } from '../seq2seq/greedy-decoder.js';
import type { TokenDecoder } from '../seq2seq/token-decoder.js';

/** Whisper's special token ids, from generation_config.json (as transformers writes it) or the tokenizer. */
export interface WhisperSpecialTokens {
  startOfTranscript: number;
  eos: number;
  noTimestamps: number;
  transcribe: number | null;
  /** <|startofprev|>: starts earlier context before <|startoftranscript|> (null when the tokenizer lacks it). */
  startOfPrev: number | null;
  /** `en` -> id of <|en|>; empty for the English-only (.en) models. */
  languages: Map<string, number>;
  /** <|nospeech|> (<|nocaptions|> in older tokenizers): its probability after <|startoftranscript|> is the no-speech probability. */
  noSpeech: number | null;
  suppress: number[];
  beginSuppress: number[];
  maxLength: number;
}

function numberOf(value: unknown, what: string, fallback?: number): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (fallback !== undefined) return fallback;
  throw new Error(`generation_config.json has no ${what}`);
}

const LANGUAGE_TOKEN = /^<\|([a-z]{2,3}|haw|yue)\|>$/;

/**
 * Multilingual or English-only (.en) as generation_config.json says in `is_multilingual`, the key
 * transformers.js reads; a config without it (older exports) is multilingual when it maps languages.
 */
export function isMultilingualWhisper(generation: Record<string, unknown>): boolean {
  if (typeof generation.is_multilingual === 'boolean') return generation.is_multilingual;
  return Object.keys((generation.lang_to_id ?? {}) as Record<string, number>).length > 0;
}

/**
 * `en` -> id of <|en|> for a multilingual model (empty for an English-only one): from the config's
 * `lang_to_id`, else from the tokenizer's special tokens (a config may say multilingual and leave the map out).
 */
export function whisperLanguageTokens(generation: Record<string, unknown>, tokens: TokenDecoder): Map<string, number> {
  const languages = new Map<string, number>();
  if (!isMultilingualWhisper(generation)) return languages;
  const langToId = generation.lang_to_id as Record<string, number> | undefined;
  const entries = langToId && Object.keys(langToId).length > 0 ? Object.entries(langToId) : [...tokens.specialTokens()];
  for (const [token, id] of entries) {
    const code = LANGUAGE_TOKEN.exec(token)?.[1];
    if (code) languages.set(code, id);
  }
  return languages;
}

export function whisperSpecialTokens(
  generation: Record<string, unknown>,
  config: Record<string, unknown>,
  tokens: TokenDecoder,
): WhisperSpecialTokens {
  const taskToId = (generation.task_to_id ?? {}) as Record<string, number>;
  const languages = whisperLanguageTokens(generation, tokens);
  return {
    startOfTranscript: numberOf(generation.decoder_start_token_id ?? tokens.id('<|startoftranscript|>'), 'decoder_start_token_id'),
    eos: numberOf(
      Array.isArray(generation.eos_token_id) ? generation.eos_token_id[0] : (generation.eos_token_id ?? tokens.id('<|endoftext|>')),
      'eos_token_id',
    ),
    noTimestamps: numberOf(generation.no_timestamps_token_id ?? tokens.id('<|notimestamps|>'), 'no_timestamps_token_id'),
    transcribe: taskToId.transcribe ?? tokens.id('<|transcribe|>') ?? null,
    startOfPrev: tokens.id('<|startofprev|>') ?? null,
    noSpeech: tokens.id('<|nospeech|>') ?? tokens.id('<|nocaptions|>') ?? null,
    languages,
    suppress: (generation.suppress_tokens as number[] | undefined) ?? [],
    beginSuppress: (generation.begin_suppress_tokens as number[] | undefined) ?? [],
    maxLength: numberOf(generation.max_length ?? config.max_target_positions, 'max_length', 448),
  };
}

/** `en`, `en-US`, `EN_us` -> `en`; `yue` stays (Whisper's codes are ISO 639-1 plus a few 639-3). */
export function whisperLanguageCode(hint: string): string {
  return hint.trim().toLowerCase().split(/[-_]/)[0]!;
}

/**
 * The decoding plan for one 30 s window: the prompt <|startoftranscript|> <|lang|> <|transcribe|>
 * <|notimestamps|> (English-only models: <|startoftranscript|> <|notimestamps|>), the configured
 * suppress and begin-suppress tokens, and every special token above EOS suppressed (language,
 * task and timestamp tokens are never text). `previous` (a prompt's tokens) goes first as
 * <|startofprev|> + the tokens, as Whisper feeds earlier context; at most half the context, as it does.
 */
export function whisperPlan(special: WhisperSpecialTokens, languageId: number | null, previous: readonly number[] = []): GenerationPlan {
  const prompt: number[] = [];
  if (previous.length > 0 && special.startOfPrev !== null)
    prompt.push(special.startOfPrev, ...previous.slice(-(Math.floor(special.maxLength / 2) - 1)));
  prompt.push(special.startOfTranscript);
  if (special.languages.size > 0) {
    if (languageId !== null) prompt.push(languageId);
    if (special.transcribe !== null) prompt.push(special.transcribe);
  }
  const sot = prompt.indexOf(special.startOfTranscript);
  prompt.push(special.noTimestamps);
  return {
    prompt,
    ...(special.noSpeech === null ? {} : { noSpeech: { token: special.noSpeech, position: sot } }),
    eos: special.eos,
    maxLength: special.maxLength,
    suppress: new Set(special.suppress),
    suppressFrom: special.startOfTranscript,
    beginSuppress: new Set(special.beginSuppress),
  };
}
