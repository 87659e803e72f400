import { RESPONSE_FORMATS, type ResponseFormat } from '../shared/audio.js';
import {
  ConflictingVoiceError,
  InputEmptyError,
  InputTooLongError,
  InvalidLanguageTagError,
  InvalidParameterError,
  StreamFormatError,
} from '../shared/errors.js';

export const SPEECH_MODEL = 'svc-audio-v3-tts';
export const MAX_INPUT_CHARS = 5000;
export const DEFAULT_VOICE = 'default';
export const SPEED_RANGE = { min: 0.25, max: 4 } as const;

/** The speech request as received (after the transport checked JSON types and unknown fields). */
export interface SpeechRequestInput {
  input: string;
  model?: string;
  voice?: string;
  response_format?: string;
  stream?: boolean;
  ref_audio?: string | null;
  ref_text?: string | null;
  enable_tn?: boolean;
  tn_language?: string | null;
  timestamps?: boolean;
  speed?: number;
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
export function validateSpeechRequest(raw: SpeechRequestInput, opts: { nested?: boolean } = {}): SpeechRequest {
  if (typeof raw.input !== 'string') throw new InvalidParameterError("'input' must be a string.", 'input');
  const length = characterCount(raw.input);
  if (length === 0 || raw.input.trim() === '') throw new InputEmptyError();
  if (length > MAX_INPUT_CHARS) throw new InputTooLongError(MAX_INPUT_CHARS, length);

  const model = raw.model ?? SPEECH_MODEL;
  if (model !== SPEECH_MODEL) {
    throw new InvalidParameterError(`Unsupported model '${model}'; the only speech model is '${SPEECH_MODEL}'.`, 'model');
  }

  const format = (raw.response_format ?? 'mp3') as ResponseFormat;
  if (!RESPONSE_FORMATS.includes(format)) {
    throw new InvalidParameterError(
      `Unsupported response_format '${raw.response_format}'; use one of ${RESPONSE_FORMATS.join(', ')}.`,
      'response_format',
    );
  }

  const stream = raw.stream ?? false;
  if (stream && opts.nested) {
    throw new InvalidParameterError("'stream' is not supported inside input_tts.", 'stream');
  }
  if (stream && format !== 'pcm') throw new StreamFormatError();

  const voiceExplicit = raw.voice !== undefined && raw.voice !== null;
  const hasRef = (raw.ref_audio ?? null) !== null || (raw.ref_text ?? null) !== null;
  if (voiceExplicit && hasRef) throw new ConflictingVoiceError();
  if ((raw.ref_text ?? null) !== null && (raw.ref_audio ?? null) === null) {
    throw new InvalidParameterError("'ref_text' was given without 'ref_audio'.", 'ref_text');
  }
  const voice = raw.voice ?? DEFAULT_VOICE;
  if (voiceExplicit && voice.trim() === '') throw new InvalidParameterError("'voice' must not be empty.", 'voice');

  const speed = raw.speed ?? 1;
  if (!Number.isFinite(speed) || speed < SPEED_RANGE.min || speed > SPEED_RANGE.max) {
    throw new InvalidParameterError(`'speed' must be between ${SPEED_RANGE.min} and ${SPEED_RANGE.max}.`, 'speed');
  }
  if (stream && speed !== 1) {
    throw new InvalidParameterError('Speed adjustment is not supported when streaming.', 'speed');
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
