import { RESPONSE_FORMATS, type ResponseFormat } from '../shared/audio.js';
import {
  ConflictingVoiceError,
  InputEmptyError,
  InputTooLongError,
  InvalidLanguageTagError,
  InvalidParameterError,
  StreamFormatError,
} from '../shared/errors.js';
import { acceptedModelNames, acceptsModel } from '../shared/model-aliases.js';

export const SPEECH_MODEL = 'svc-audio-v3-tts';
export const MAX_INPUT_CHARS = 5000;
export const DEFAULT_VOICE = 'default';
export const SPEED_RANGE = { min: 0.25, max: 4 } as const;
/** OpenAI's limit on `instructions`. */
export const MAX_INSTRUCTIONS_CHARS = 4096;
/** `audio`: the audio bytes themselves (the default); `sse`: server-sent events carrying base64 audio. */
export const STREAM_FORMATS = ['audio', 'sse'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

/** The speech request as received (after the transport checked JSON types and unknown fields). */
export interface SpeechRequestInput {
  input: string;
  model?: string;
  /** A name, or OpenAI's custom voice object `{id}`. */
  voice?: string | { id: string };
  response_format?: string;
  stream?: boolean;
  ref_audio?: string | null;
  ref_text?: string | null;
  enable_tn?: boolean;
  tn_language?: string | null;
  timestamps?: boolean;
  speed?: number;
  /** Delivery in words (OpenAI's field); mapped onto inline tags (delivery-instructions.ts). */
  instructions?: string | null;
  stream_format?: string;
}

/** A validated speech request with every default applied. */
export interface SpeechRequest {
  input: string;
  model: typeof SPEECH_MODEL;
  voice: string;
  /** True when the caller named the voice (an explicit `default` counts). */
  voiceExplicit: boolean;
  responseFormat: ResponseFormat;
  stream: boolean;
  refAudio: string | null;
  refText: string | null;
  enableTn: boolean;
  tnLanguage: string | null;
  timestamps: boolean;
  speed: number;
  /** Null when none were given. */
  instructions: string | null;
  /** `sse` always streams (chunks are synthesized as for `stream`, then wrapped in events). */
  streamFormat: StreamFormat;
}

export interface SpeechRequestOptions {
  /** Inside a video's `input_tts` (no streaming). */
  nested?: boolean;
  /** Accept OpenAI's model names as aliases (SVC_OPENAI_MODEL_ALIASES). */
  openAiModelAliases?: boolean;
}

/** Counts user-perceived characters the way the limit is documented: Unicode code points. */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Applies the spec's rules to a speech request. Used by the REST adapter and by anyone embedding
 * the core, so the rules hold whichever door the request came through.
 */
export function validateSpeechRequest(raw: SpeechRequestInput, opts: SpeechRequestOptions = {}): SpeechRequest {
  if (typeof raw.input !== 'string') throw new InvalidParameterError("'input' must be a string.", 'input');
  const length = characterCount(raw.input);
  if (length === 0) throw new InputEmptyError();
  if (raw.input.trim() === '') throw new InputEmptyError("'input' holds only whitespace: there is nothing to speak.");
  if (length > MAX_INPUT_CHARS) throw new InputTooLongError(MAX_INPUT_CHARS, length);

  const model = raw.model ?? SPEECH_MODEL;
  if (!acceptsModel('speech', model, SPEECH_MODEL, opts.openAiModelAliases ?? false)) {
    const hint = opts.openAiModelAliases ? '' : ' (OpenAI model names are accepted only when the server enables SVC_OPENAI_MODEL_ALIASES)';
    const accepted = acceptedModelNames('speech', SPEECH_MODEL, opts.openAiModelAliases ?? false);
    throw new InvalidParameterError(`Unsupported model '${model}'; the speech model is ${accepted}${hint}.`, 'model');
  }

  const format = (raw.response_format ?? 'mp3') as ResponseFormat;
  if (!RESPONSE_FORMATS.includes(format)) {
    throw new InvalidParameterError(
      `Unsupported response_format '${raw.response_format}'; use one of ${RESPONSE_FORMATS.join(', ')}.`,
      'response_format',
    );
  }

  const streamFormat = (raw.stream_format ?? 'audio') as StreamFormat;
  if (!STREAM_FORMATS.includes(streamFormat)) {
    throw new InvalidParameterError(
      `Unsupported stream_format '${String(raw.stream_format).slice(0, 40)}'; use 'audio' or 'sse'.`,
      'stream_format',
    );
  }
  const sse = streamFormat === 'sse';
  if (sse && opts.nested) throw new InvalidParameterError("'stream_format' is not supported inside input_tts.", 'input_tts.stream_format');
  // Events are a stream by nature: 'sse' with an explicit 'stream: false' asks for two contrary things.
  if (sse && raw.stream === false) {
    throw new InvalidParameterError(
      "'stream_format: sse' streams events as the audio is synthesized; omit 'stream' or set it to true.",
      'stream_format',
    );
  }
  const stream = raw.stream ?? sse;
  if (stream && opts.nested) {
    throw new InvalidParameterError("'stream' is not supported inside input_tts.", 'stream');
  }
  // Raw streamed bytes are PCM only; events carry any format (see the speech docs for wav).
  if (stream && !sse && format !== 'pcm') throw new StreamFormatError();

  // OpenAI's SDKs send a custom voice as {id: 'voice_...'}; it names the same voice as the string.
  const voiceName = typeof raw.voice === 'object' && raw.voice !== null ? raw.voice.id : raw.voice;
  const voiceExplicit = voiceName !== undefined && voiceName !== null;
  const hasRef = (raw.ref_audio ?? null) !== null || (raw.ref_text ?? null) !== null;
  if (voiceExplicit && hasRef) throw new ConflictingVoiceError();
  if ((raw.ref_text ?? null) !== null && (raw.ref_audio ?? null) === null) {
    throw new InvalidParameterError("'ref_text' was given without 'ref_audio'.", 'ref_text', ['ref_audio']);
  }
  const voice = voiceName ?? DEFAULT_VOICE;
  if (voiceExplicit && voice.trim() === '') throw new InvalidParameterError("'voice' must not be empty.", 'voice');

  const speed = raw.speed ?? 1;
  if (!Number.isFinite(speed) || speed < SPEED_RANGE.min || speed > SPEED_RANGE.max) {
    throw new InvalidParameterError(`'speed' must be between ${SPEED_RANGE.min} and ${SPEED_RANGE.max}.`, 'speed');
  }
  if (stream && speed !== 1) {
    throw new InvalidParameterError('Speed adjustment is not supported when streaming.', 'speed');
  }
  const instructions = raw.instructions ?? null;
  if (instructions !== null && (typeof instructions !== 'string' || characterCount(instructions) > MAX_INSTRUCTIONS_CHARS)) {
    throw new InvalidParameterError(
      `'instructions' must be a string of at most ${MAX_INSTRUCTIONS_CHARS} characters.`,
      opts.nested ? 'input_tts.instructions' : 'instructions',
    );
  }
  const timestamps = raw.timestamps ?? false;
  if (stream && timestamps) {
    throw new InvalidParameterError(
      "'timestamps' is not available with 'stream'; request the whole response to get word timings.",
      'timestamps',
    );
  }

  return {
    input: raw.input,
    model: SPEECH_MODEL,
    voice,
    voiceExplicit,
    responseFormat: format,
    stream,
    refAudio: raw.ref_audio ?? null,
    refText: raw.ref_text ?? null,
    enableTn: raw.enable_tn ?? true,
    tnLanguage: validLanguageTag(raw.tn_language ?? null, 'tn_language'),
    timestamps,
    speed,
    instructions,
    streamFormat,
  };
}

/** BCP-47-like: a 2-3 letter primary language, then up to 7 subtags of 1-8 letters or digits. */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,7}$/;
export const LANGUAGE_TAG_MAX_CHARS = 35;

/**
 * The language the caller names is echoed (as X-Language) and picks normalization rules, so it is
 * held to the shape of a language tag: anything else (control characters, CR/LF, non-ASCII) is a
 * 400, never a header error.
 */
function validLanguageTag(value: unknown, param: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || value.length > LANGUAGE_TAG_MAX_CHARS || !LANGUAGE_TAG.test(value)) {
    throw new InvalidLanguageTagError(param, LANGUAGE_TAG_MAX_CHARS);
  }
  return value.replace(/_/g, '-');
}
