import { z } from 'zod';
import { MAX_INLINE_MEDIA_SIZE, VOICE_LIMITS } from '@svc/core';

const mb = MAX_INLINE_MEDIA_SIZE / (1024 * 1024);

/** POST /v1/audio/voices as JSON: the single source for validation and the OpenAPI document. */
export const voiceCreateFields = {
  ref_audio: z
    .string()
    .describe(
      `Reference audio of the speaker: http(s) URL, data URI or base64 bytes (AAC, WAV, MP3, FLAC, OPUS; detected from the content). Inline max ${mb} MB; ${VOICE_LIMITS.minDurationSeconds}-${VOICE_LIMITS.maxDurationSeconds} s of speech, 5-20 s recommended.`,
    ),
  ref_text: z
    .string()
    .nullable()
    .optional()
    .describe(`Transcript of ref_audio (recommended: improves the speaking-rate estimate); max ${VOICE_LIMITS.refTextMaxChars} characters`),
  description: z.string().nullable().optional().describe(`Free text, max ${VOICE_LIMITS.descriptionMaxChars} characters`),
};

export const voiceCreateSchema = z.strictObject(voiceCreateFields).meta({ id: 'VoiceCreateRequest' });

/** The same request as multipart/form-data: ref_audio may be a file part instead of a text field. */
export const voiceCreateMultipartSchema = z
  .object({
    ref_audio: z.string().describe(`A file part with the audio bytes (max ${mb} MB), or a text field in any of the JSON forms`),
    ref_text: voiceCreateFields.ref_text,
    description: voiceCreateFields.description,
  })
  .meta({ id: 'VoiceCreateMultipartRequest' });

export const voiceListQuerySchema = z.strictObject({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(VOICE_LIMITS.listMaxLimit)
    .optional()
    .describe(`Page size, 1 to ${VOICE_LIMITS.listMaxLimit}; default ${VOICE_LIMITS.listDefaultLimit}`),
  after: z.string().optional().describe('A voice id from the previous page (its last_id): the page continues after it'),
});

const createdAt = z.string().describe('Creation time, ISO 8601 UTC with second precision (e.g. 2025-01-31T12:00:00Z)');

export const voiceSchema = z
  .object({
    voice: z.string().describe('Voice id (voice_ + digest of the decoded reference audio)'),
    ref_text: z.string(),
    description: z.string(),
    created_at: createdAt,
  })
  .meta({ id: 'Voice' });

export const voiceListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ voice: z.string(), description: z.string(), created_at: createdAt })),
    has_more: z.boolean().describe('True when another page follows (request it with after=last_id)'),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
  })
  .meta({ id: 'VoiceList' });

export const voiceDeletedSchema = z
  .object({ voice_id: z.string(), object: z.literal('voice'), deleted: z.literal(true) })
  .meta({ id: 'VoiceDeleted' });
