import {
  expectArray,
  expectBoolean,
  expectBoundedString,
  expectInteger,
  expectNumber,
  expectObject,
  expectString,
  isObject,
  oneOf,
  rejectUnknownKeys,
  type JsonObject,
} from '../protocol/field-checks.js';
import { acceptedModelNames, acceptsModel } from '../../shared/model-aliases.js';
import { invalidRequest } from '../protocol/realtime-error.js';
import { parseAudioFormat } from './audio-format-input.js';
import { parseSessionAvatar } from './avatar-input.js';
import { parseTools, parseToolChoice } from './tools-input.js';
import {
  cloneSessionConfig,
  defaultSessionConfig,
  defaultTurnDetection,
  EAGERNESS_VALUES,
  MAX_OUTPUT_TOKENS_CAP,
  MAX_REALTIME_INSTRUCTIONS_CHARS,
  NOISE_REDUCTION_TYPES,
  OUTPUT_SPEED_RANGE,
  REALTIME_MODEL,
  TEMPERATURE_RANGE,
  TRANSCRIPTION_MODEL,
  TURN_DETECTION_BOUNDS,
  type RealtimeSessionConfig,
  type TurnDetection,
} from './session-config.js';

const SESSION_KEYS = [
  'type',
  'model',
  'instructions',
  'output_modalities',
  'audio',
  'tools',
  'tool_choice',
  'temperature',
  'max_output_tokens',
  'truncation',
  'include',
  'prompt',
  'tracing',
  // Extension: a face for the call's video (WebRTC).
  'avatar',
  // Read-only fields of the session object; a client echoing a session back may send them.
  'id',
  'object',
  'expires_at',
] as const;
const REJECTED_SESSION_FIELDS = ['include', 'prompt', 'tracing'] as const;

export interface SessionUpdateResult {
  config: RealtimeSessionConfig;
  /** A non-`default` output voice named in this update: the caller must check it exists. */
  voiceToValidate: string | null;
}

/**
 * Applies one `session.update` to the current configuration (null before the first one).
 * Fields absent from the update keep their current value; nested objects that are present
 * (formats, turn_detection, transcription) replace the old ones whole, as in the GA API.
 * Throws a RealtimeError for anything the spec rejects; the engine then closes the session.
 */
export function applySessionUpdate(
  raw: unknown,
  current: RealtimeSessionConfig | null,
  urlModel: string | null,
  /** Accept OpenAI's realtime model names (`gpt-realtime`, ...) as aliases; echoed as sent. */
  openAiModelAliases = false,
): SessionUpdateResult {
  const s = expectObject(raw, 'session');
  rejectUnknownKeys(s, SESSION_KEYS, 'session');
  for (const field of REJECTED_SESSION_FIELDS) {
    if (s[field] !== undefined && s[field] !== null) {
      throw invalidRequest('unsupported_parameter', `'session.${field}' is not supported.`, `session.${field}`);
    }
  }
  if (s.type !== undefined && s.type !== 'realtime') {
    const message =
      s.type === 'transcription'
        ? 'Transcription-only sessions are not supported; use session type "realtime".'
        : "'session.type' must be 'realtime'.";
    throw invalidRequest('invalid_value', message, 'session.type');
  }

  const model = resolveModel(s, current, urlModel, openAiModelAliases);
  const next = current ? cloneSessionConfig(current) : defaultSessionConfig(model);
  next.model = model;

  if (s.instructions !== undefined)
    next.instructions = expectBoundedString(s.instructions, 'session.instructions', MAX_REALTIME_INSTRUCTIONS_CHARS);
  if (s.output_modalities !== undefined) next.output_modalities = parseModalities(s.output_modalities);
  if (s.temperature !== undefined) {
    next.temperature = expectNumber(s.temperature, 'session.temperature', TEMPERATURE_RANGE.min, TEMPERATURE_RANGE.max);
  }
  if (s.max_output_tokens !== undefined) {
    next.max_output_tokens = parseMaxOutputTokens(s.max_output_tokens, 'session.max_output_tokens');
  }
  if (s.truncation !== undefined) {
    if (isObject(s.truncation)) {
      throw invalidRequest(
        'unsupported_parameter',
        "'session.truncation' objects are not supported; use 'auto' or 'disabled'.",
        'session.truncation',
      );
    }
    next.truncation = oneOf(s.truncation, ['auto', 'disabled'] as const, 'session.truncation');
  }
  if (s.tools !== undefined) next.tools = parseTools(s.tools);
  if (s.tool_choice !== undefined) next.tool_choice = parseToolChoice(s.tool_choice);
  if (typeof next.tool_choice === 'object' && !next.tools.some((t) => t.name === (next.tool_choice as { name: string }).name)) {
    throw invalidRequest('invalid_value', `'session.tool_choice' names a function that is not in 'session.tools'.`, 'session.tool_choice');
  }

  if (s.avatar !== undefined) next.avatar = parseSessionAvatar(s.avatar, next.avatar);

  let voiceToValidate: string | null = null;
  if (s.audio !== undefined) voiceToValidate = applyAudio(expectObject(s.audio, 'session.audio'), next);
  return { config: next, voiceToValidate };
}

function resolveModel(s: JsonObject, current: RealtimeSessionConfig | null, urlModel: string | null, openAiModelAliases: boolean): string {
  // An explicit session.model wins over the URL; later updates keep the session's model.
  const candidate = s.model !== undefined ? expectString(s.model, 'session.model') : (current?.model ?? urlModel);
  if (candidate === null || candidate === undefined) {
    throw invalidRequest(
      'missing_required_parameter',
      `Missing model: set 'session.model' to '${REALTIME_MODEL}' or connect with ?model=${REALTIME_MODEL}.`,
      'session.model',
    );
  }
  if (!acceptsModel('realtime', candidate, REALTIME_MODEL, openAiModelAliases)) {
    const accepted = acceptedModelNames('realtime', REALTIME_MODEL, openAiModelAliases);
    throw invalidRequest('invalid_value', `Unsupported model '${candidate}'; the realtime model is ${accepted}.`, 'session.model');
  }
  return candidate;
}

/** Exactly one of audio or text (mixed output is unsupported). Shared with per-response overrides. */
export function parseModalities(raw: unknown, param = 'session.output_modalities'): ['audio'] | ['text'] {
  const list = expectArray(raw, param);
  if (list.length === 1 && (list[0] === 'audio' || list[0] === 'text')) return [list[0]] as ['audio'] | ['text'];
  if (list.length > 1) {
    throw invalidRequest('unsupported_parameter', "Mixed output modalities are not supported; use exactly ['audio'] or ['text'].", param);
  }
  throw invalidRequest('invalid_value', `'${param}' must be ['audio'] or ['text'].`, param);
}

/** Integers are clamped to 4096; 'inf' is unbounded. Shared with per-response overrides. */
export function parseMaxOutputTokens(raw: unknown, param: string): number | 'inf' {
  if (raw === 'inf') return 'inf';
  const n = expectInteger(raw, param);
  if (n < 1) throw invalidRequest('invalid_value', `'${param}' must be at least 1 or 'inf'.`, param);
  return Math.min(n, MAX_OUTPUT_TOKENS_CAP);
}

function applyAudio(audio: JsonObject, next: RealtimeSessionConfig): string | null {
  rejectUnknownKeys(audio, ['input', 'output'], 'session.audio');
  if (audio.input !== undefined) {
    const input = expectObject(audio.input, 'session.audio.input');
    rejectUnknownKeys(input, ['format', 'noise_reduction', 'transcription', 'turn_detection'], 'session.audio.input');
    const target = next.audio.input;
    if (input.format !== undefined) target.format = parseAudioFormat(input.format, 'session.audio.input.format');
    if (input.noise_reduction !== undefined) target.noise_reduction = parseNoiseReduction(input.noise_reduction);
    if (input.transcription !== undefined) target.transcription = parseTranscription(input.transcription);
    if (input.turn_detection !== undefined) target.turn_detection = parseTurnDetection(input.turn_detection);
  }
  let voice: string | null = null;
  if (audio.output !== undefined) {
    const output = expectObject(audio.output, 'session.audio.output');
    rejectUnknownKeys(output, ['format', 'voice', 'speed'], 'session.audio.output');
    const target = next.audio.output;
    if (output.format !== undefined) target.format = parseAudioFormat(output.format, 'session.audio.output.format');
    if (output.speed !== undefined) {
      target.speed = expectNumber(output.speed, 'session.audio.output.speed', OUTPUT_SPEED_RANGE.min, OUTPUT_SPEED_RANGE.max);
    }
    if (output.voice !== undefined) {
      const v = expectString(output.voice, 'session.audio.output.voice');
      if (v.trim() === '')
        throw invalidRequest('invalid_value', "'session.audio.output.voice' must not be empty.", 'session.audio.output.voice');
      target.voice = v;
      if (v !== 'default') voice = v;
    }
  }
  return voice;
}

function parseNoiseReduction(raw: unknown): { type: (typeof NOISE_REDUCTION_TYPES)[number] } | null {
  if (raw === null) return null;
  const obj = expectObject(raw, 'session.audio.input.noise_reduction');
  rejectUnknownKeys(obj, ['type'], 'session.audio.input.noise_reduction');
  return { type: oneOf(obj.type, NOISE_REDUCTION_TYPES, 'session.audio.input.noise_reduction.type') };
}

const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;

function parseTranscription(raw: unknown): { model: string | null; language: string | null } | null {
  if (raw === null) return null;
  const param = 'session.audio.input.transcription';
  const obj = expectObject(raw, param);
  // prompt, keywords, languages and delay are accepted and ignored (spec).
  rejectUnknownKeys(obj, ['model', 'language', 'prompt', 'keywords', 'languages', 'delay'], param);
  let model: string | null = null;
  if (obj.model !== undefined && obj.model !== null) {
    // Any model name turns transcription on with the service's recognizer (svc-stt-3.1): clients
    // written for the modelled API send their own defaults (e.g. gpt-4o-mini-transcribe).
    model = expectString(obj.model, `${param}.model`);
    if (model.trim() === '')
      throw invalidRequest('invalid_value', `'${param}.model' must not be empty; use '${TRANSCRIPTION_MODEL}'.`, `${param}.model`);
  }
  let language: string | null = null;
  if (obj.language !== undefined && obj.language !== null) {
    language = expectString(obj.language, `${param}.language`);
    if (!LANGUAGE_TAG.test(language)) {
      throw invalidRequest('invalid_value', `'${param}.language' must be an ISO-639-1 code such as 'en'.`, `${param}.language`);
    }
  }
  return { model, language };
}

function parseTurnDetection(raw: unknown): TurnDetection | null {
  if (raw === null) return null;
  const param = 'session.audio.input.turn_detection';
  const obj = expectObject(raw, param);
  rejectUnknownKeys(
    obj,
    [
      'type',
      'threshold',
      'prefix_padding_ms',
      'silence_duration_ms',
      'min_speech_duration',
      'create_response',
      'interrupt_response',
      'eagerness',
      'idle_timeout_ms',
      'min_interruption_duration',
      'min_interruption_words',
      'resume_false_interruption',
      'interruption_events',
    ],
    param,
  );
  if (obj.idle_timeout_ms !== undefined && obj.idle_timeout_ms !== null) {
    throw invalidRequest(
      'unsupported_parameter',
      `'${param}.idle_timeout_ms' is not supported; sessions time out after 5 minutes without user speech.`,
      `${param}.idle_timeout_ms`,
    );
  }
  const type = obj.type === undefined ? 'server_vad' : oneOf(obj.type, ['server_vad', 'semantic_vad'] as const, `${param}.type`);
  const td = defaultTurnDetection(type);
  if (obj.threshold !== undefined) td.threshold = expectNumber(obj.threshold, `${param}.threshold`, 0, 1);
  const b = TURN_DETECTION_BOUNDS;
  if (obj.prefix_padding_ms !== undefined) {
    td.prefix_padding_ms = expectInteger(
      obj.prefix_padding_ms,
      `${param}.prefix_padding_ms`,
      b.prefix_padding_ms.min,
      b.prefix_padding_ms.max,
    );
  }
  if (obj.silence_duration_ms !== undefined) {
    td.silence_duration_ms = expectInteger(
      obj.silence_duration_ms,
      `${param}.silence_duration_ms`,
      b.silence_duration_ms.min,
      b.silence_duration_ms.max,
    );
  }
  if (obj.min_speech_duration !== undefined) {
    td.min_speech_duration = expectNumber(
      obj.min_speech_duration,
      `${param}.min_speech_duration`,
      b.min_speech_duration.min,
      b.min_speech_duration.max,
    );
  }
  if (obj.min_interruption_duration !== undefined) {
    const bound = b.min_interruption_duration;
    td.min_interruption_duration = expectNumber(obj.min_interruption_duration, `${param}.min_interruption_duration`, bound.min, bound.max);
  }
  if (obj.min_interruption_words !== undefined) {
    const bound = b.min_interruption_words;
    td.min_interruption_words = expectInteger(obj.min_interruption_words, `${param}.min_interruption_words`, bound.min, bound.max);
  }
  if (obj.resume_false_interruption !== undefined) {
    td.resume_false_interruption = expectBoolean(obj.resume_false_interruption, `${param}.resume_false_interruption`);
  }
  if (obj.interruption_events !== undefined)
    td.interruption_events = expectBoolean(obj.interruption_events, `${param}.interruption_events`);
  // Accepted for compatibility; they change nothing (always respond, always interruptible).
  if (obj.create_response !== undefined) td.create_response = expectBoolean(obj.create_response, `${param}.create_response`);
  if (obj.interrupt_response !== undefined) td.interrupt_response = expectBoolean(obj.interrupt_response, `${param}.interrupt_response`);
  if (obj.eagerness !== undefined) td.eagerness = oneOf(obj.eagerness, EAGERNESS_VALUES, `${param}.eagerness`);
  return td;
}
