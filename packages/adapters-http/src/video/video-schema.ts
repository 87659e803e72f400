import { z } from 'zod';
import { DEFAULT_VIDEO_SIZE, MAX_INLINE_MEDIA_SIZE, VIDEO_LIMITS, VIDEO_MODEL, VIDEO_SIZES } from '@svc/core';
import { speechRequestFields } from '../speech/speech-schema.js';

const mb = MAX_INLINE_MEDIA_SIZE / (1024 * 1024);

/**
 * POST /v1/videos and /v1/videos/stream as JSON: the single source for validation of types and
 * unknown fields, and for the OpenAPI document. `model` and `size` are plain strings here so the
 * core's own identifiers (invalid_video_model, invalid_video_size) answer a wrong value.
 */
export const videoCreateFields = {
  ref_image: z
    .string()
    .describe(
      `The face to animate: http(s) URL, data URI or base64 bytes; PNG, JPEG or WEBP (detected from the bytes); inline max ${mb} MB, at most ${VIDEO_LIMITS.maxImageSide} px a side and ${VIDEO_LIMITS.maxImagePixels / 1e6} MP`,
    ),
  model: z.string().nullable().optional().describe(`Only ${VIDEO_MODEL} (default)`),
  input: z
    .string()
    .nullable()
    .optional()
    .describe(
      `Driving speech audio: http(s) URL, data URI or base64 (AAC, WAV, MP3, FLAC, OPUS); max ${VIDEO_LIMITS.maxDrivingSeconds} s; its length is the video's. Exactly one of input / input_tts`,
    ),
  input_tts: z
    .strictObject(speechRequestFields)
    .nullable()
    .optional()
    .describe(
      'A speech request (every rule of POST /v1/audio/speech; stream unsupported; response_format ignored): the avatar speaks its audio',
    ),
  size: z
    .string()
    .nullable()
    .optional()
    .describe(`${VIDEO_SIZES.join(', ')}; default ${DEFAULT_VIDEO_SIZE}`),
};

export const videoCreateSchema = z.strictObject(videoCreateFields).meta({ id: 'VideoCreateRequest' });

export const videoCreateMultipartSchema = z
  .object({
    ref_image: z.string().describe(`A file part with the image bytes (max ${mb} MB), or a text field in any of the JSON forms`),
    model: videoCreateFields.model,
    input: z.string().optional().describe(`A file part with the audio bytes (max ${mb} MB), or a text field in any of the JSON forms`),
    input_tts: z.string().optional().describe('The speech request as a JSON text field'),
    size: videoCreateFields.size,
  })
  .meta({ id: 'VideoCreateMultipartRequest' });

export const videoSchema = z
  .object({
    id: z.string().describe('video_...'),
    object: z.literal('video'),
    model: z.string(),
    status: z.enum(['queued', 'in_progress', 'completed', 'failed']),
    progress: z.number().int().describe('0 to 100: share of frames encoded; never goes back; 100 when completed'),
    size: z.string(),
    seconds: z.string().describe('Length of the video in seconds (that of the driving speech)'),
    created_at: z.number().int().describe('Unix seconds'),
    completed_at: z.number().int().nullable().describe('Unix seconds when it completed or failed'),
    expires_at: z.number().int().nullable().describe('Unix seconds when the retention sweep removes it; null when kept until deleted'),
    error: z.string().nullable().describe('Why it failed; null unless status is failed'),
  })
  .meta({ id: 'Video' });

export const videoListQuerySchema = z.strictObject({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(VIDEO_LIMITS.listMaxLimit)
    .optional()
    .describe(`Page size, 1 to ${VIDEO_LIMITS.listMaxLimit}; default ${VIDEO_LIMITS.listDefaultLimit}`),
  after: z.string().optional().describe('A video id from the previous page (its last_id): the page continues after it'),
});

export const videoListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(videoSchema),
    has_more: z.boolean(),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
  })
  .meta({ id: 'VideoList' });

export const videoDeletedSchema = z
  .object({ id: z.string(), object: z.literal('video.deleted'), deleted: z.literal(true) })
  .meta({ id: 'VideoDeleted' });

export const videoContentQuerySchema = z.strictObject({
  variant: z.string().optional().describe('Only `video` (the default)'),
});
