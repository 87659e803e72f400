import { z } from 'zod';
import { MAX_INPUT_CHARS, MAX_INSTRUCTIONS_CHARS, RESPONSE_FORMATS, SPEECH_MODEL, SPEED_RANGE, STREAM_FORMATS } from '@svc/core';

/**
 * The Speech request as JSON: the single source for validation of the REST body and for the
 * OpenAPI document. Domain rules (lengths counted in characters, mutual exclusions, stream/pcm)
 * are applied next by the core's validateSpeechRequest, so they hold for embedded use too.
 */
export const speechRequestFields = {
  input: z
    .string()
    .describe(
      `Text to speak, 1 to ${MAX_INPUT_CHARS} characters; may contain inline tags such as <|emotion:enthusiasm|> or <|prosody:pause|>`,
    ),
  model: z
    .string()
    .optional()
    .describe(`${SPEECH_MODEL} (default); with SVC_OPENAI_MODEL_ALIASES also tts-1, tts-1-hd, gpt-4o-mini-tts (and dated snapshots)`),
  voice: z
    .union([z.string(), z.strictObject({ id: z.string() })])
    .optional()
    .describe(
      '`default`, a preset name (GET /v1/audio/presets; OpenAI names such as `alloy` alias installed voices) or a custom voice id `voice_...` (also as `{id}`)',
    ),
  response_format: z.enum(RESPONSE_FORMATS).optional().describe('Audio format; default mp3. pcm is 24 kHz 16-bit mono little-endian'),
  stream: z.boolean().optional().describe('Stream raw PCM chunks as each sentence is synthesized; requires response_format pcm'),
  stream_format: z
    .enum(STREAM_FORMATS)
    .optional()
    .describe(
      '`audio` (default): audio bytes. `sse`: text/event-stream of speech.audio.delta events (base64 audio, one per synthesized piece, any response_format; wav comes whole) and a final speech.audio.done with usage; not with stream=false',
    ),
  instructions: z
    .string()
    .nullable()
    .optional()
    .describe(
      `Delivery in words, at most ${MAX_INSTRUCTIONS_CHARS} characters (e.g. "speak slowly and calmly"): mapped onto inline tags (docs/speech.md); the X-Instructions-Applied header names the tags applied`,
    ),
  ref_audio: z
    .string()
    .nullable()
    .optional()
    .describe('Reference audio for one-off cloning: http(s) URL, data URI or base64 bytes (AAC, WAV, MP3, FLAC, OPUS); inline max 10 MB'),
  ref_text: z.string().nullable().optional().describe('Transcript of ref_audio (recommended)'),
  enable_tn: z
    .boolean()
    .optional()
    .describe('Text normalization (numbers, dates, times, currency, units, abbreviations into words); default true'),
  tn_language: z
    .string()
    .nullable()
    .optional()
    .describe(
      'Language of the input (ISO 639-1 or BCP-47, e.g. fr, en-us): picks the voice for `default` and the normalization rules; detected when omitted',
    ),
  timestamps: z
    .boolean()
    .optional()
    .describe(
      'Return JSON {audio (base64), content_type, sample_rate, duration, words: [{word, start, end}]} instead of raw audio; not with stream',
    ),
  speed: z
    .number()
    .min(SPEED_RANGE.min)
    .max(SPEED_RANGE.max)
    .optional()
    .describe(`Speaking-rate multiplier ${SPEED_RANGE.min}..${SPEED_RANGE.max}, default 1; unsupported with stream`),
};

export const speechRequestSchema = z.strictObject(speechRequestFields);

export const speechTimestampsResponseSchema = z.object({
  audio: z.string().describe('base64 of the encoded audio'),
  content_type: z.string(),
  sample_rate: z.number().int(),
  duration: z.number().describe('seconds'),
  voice: z.string(),
  language: z.string(),
  words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number() })),
});

export const presetListSchema = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      voice: z.string(),
      language: z.string(),
      gender: z.string(),
      engine: z.string(),
      description: z.string(),
      alias_of: z.string().optional().describe('For OpenAI voice names: the installed preset this one stands for (English)'),
    }),
  ),
});
