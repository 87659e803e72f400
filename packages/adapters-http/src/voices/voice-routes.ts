import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import {
  InvalidRequestError,
  MAX_INLINE_MEDIA_SIZE,
  MissingParameterError,
  type DeleteVoice,
  type GetVoice,
  type ListVoices,
  type RegisterVoice,
  type RegisterVoiceCommand,
} from '@svc/core';
import type { AppState, RouteModule } from '../app-state.js';
import { readJsonBody } from '../body/json-body.js';
import { isMultipart, readMultipartForm } from '../multipart/multipart-form.js';
import { pageParameters } from '../openapi/openapi-registry.js';
import { clientDisconnectSignal } from '../routing/client-disconnect.js';
import type { RouteTable } from '../routing/route-table.js';
import { parseRequest } from '../validation/parse-request.js';
import { presentVoice, presentVoiceDeleted, presentVoiceList } from './voice-presenter.js';
import {
  voiceCreateMultipartSchema,
  voiceCreateSchema,
  voiceDeletedSchema,
  voiceListQuerySchema,
  voiceListSchema,
  voiceSchema,
} from './voice-schema.js';

export interface VoiceRoutesDeps {
  register: RegisterVoice;
  list: ListVoices;
  get: GetVoice;
  remove: DeleteVoice;
  jsonBodyLimit: number;
  /** Per-key admission for registrations (each one decodes and analyses audio). */
  rateLimit?: Middleware<AppState>;
}

type VoiceContext = Context & { state: AppState; params: Record<string, string> };

const CREATE_FIELDS = ['ref_audio', 'ref_text', 'description'] as const;

/** POST/GET /v1/audio/voices and GET/DELETE /v1/audio/voices/{voice}. */
export function voiceRoutes(deps: VoiceRoutesDeps): RouteModule {
  const voiceParam = { name: 'voice', in: 'path' as const, description: 'Voice id (voice_...)', schema: z.string() };
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'post',
        path: '/v1/audio/voices',
        summary: 'Register a reference voice',
        description:
          'Registers a voice for cloning from a reference clip. The id is derived from the decoded audio: the same audio registered again under the same key returns the existing voice (X-Voice-Created: false).',
        tags: ['voices'],
        requestBody: { 'application/json': voiceCreateSchema, 'multipart/form-data': voiceCreateMultipartSchema },
        responses: {
          '200': {
            description: 'The voice (new or existing)',
            content: { 'application/json': voiceSchema },
            headers: { 'X-Voice-Created': 'true for a new voice, false when this key had registered the same audio already' },
          },
          '400': {
            description:
              'invalid_audio, media_empty, audio_silent, audio_too_short, audio_too_long, invalid_base64, invalid_media_url, media_url_not_allowed, media_fetch_failed, media_fetch_timeout, invalid_parameter, missing_required_parameter',
          },
          '413': { description: 'media_too_large: inline payload or upload over 10 MB, or download over the server cap' },
          '429': {
            description:
              'voice_limit_exceeded: the key already stores its maximum of voices (delete one first), decided before the body is read; concurrency_limit_exceeded; rate_limit_exceeded',
          },
        },
        handlers: [...(deps.rateLimit ? [deps.rateLimit] : []), (ctx) => create(ctx as VoiceContext, deps)],
      });
      routes.add({
        method: 'get',
        path: '/v1/audio/voices',
        summary: 'List your voices',
        description: 'Voices registered under the calling key, newest first, in pages (limit, after).',
        tags: ['voices'],
        parameters: pageParameters(voiceListQuerySchema),
        responses: { '200': { description: 'A page of voices', content: { 'application/json': voiceListSchema } } },
        handlers: [
          async (ctx) => {
            const query = parseRequest(voiceListQuerySchema, { ...ctx.query });
            ctx.body = presentVoiceList(await deps.list.execute(ctx.state.principal, query));
          },
        ],
      });
      routes.add({
        method: 'get',
        path: '/v1/audio/voices/{voice}',
        summary: 'Get a voice',
        tags: ['voices'],
        parameters: [voiceParam],
        responses: {
          '200': { description: 'The voice', content: { 'application/json': voiceSchema } },
          '404': { description: "voice_not_found: unknown, another key's, or deleted (indistinguishable)" },
        },
        handlers: [
          async (ctx) => {
            ctx.body = presentVoice(await deps.get.execute(ctx.state.principal, ctx.params.voice!));
          },
        ],
      });
      routes.add({
        method: 'delete',
        path: '/v1/audio/voices/{voice}',
        summary: 'Delete a voice',
        description: 'Removes the voice and its stored reference audio; speech with it then fails with voice_not_found.',
        tags: ['voices'],
        parameters: [voiceParam],
        responses: {
          '200': { description: 'Deleted', content: { 'application/json': voiceDeletedSchema } },
          '403': { description: 'voice_not_deletable: a shared preset voice' },
          '404': { description: "voice_not_found: unknown, another key's, or already deleted (indistinguishable)" },
        },
        handlers: [
          async (ctx) => {
            const { voiceId } = await deps.remove.execute(ctx.state.principal, ctx.params.voice!);
            ctx.body = presentVoiceDeleted(voiceId);
          },
        ],
      });
    },
  };
}

async function create(ctx: VoiceContext, deps: VoiceRoutesDeps): Promise<void> {
  // The body is read only once the key is under its cap of stored voices (a 429 reads nothing).
  const command = async () =>
    isMultipart(ctx) ? fromMultipart(ctx) : fromJson(await readJsonBody(ctx, deps.jsonBodyLimit, { orMultipart: true }));
  const result = await deps.register.execute(ctx.state.principal, command, clientDisconnectSignal(ctx));
  // 200 either way (the spec's success code); the header tells a new voice from an existing one.
  ctx.status = 200;
  ctx.set('X-Voice-Created', String(result.created));
  ctx.body = presentVoice(result.voice);
}

function fromJson(body: unknown): RegisterVoiceCommand {
  const request = parseRequest(voiceCreateSchema, body);
  return { refAudio: request.ref_audio, refText: request.ref_text ?? null, description: request.description ?? null };
}

async function fromMultipart(ctx: VoiceContext): Promise<RegisterVoiceCommand> {
  const form = await readMultipartForm(ctx, {
    allowed: CREATE_FIELDS,
    maxFileBytes: MAX_INLINE_MEDIA_SIZE,
    // A base64 ref_audio text field may be up to the inline cap plus a data-URI header.
    maxFieldBytes: MAX_INLINE_MEDIA_SIZE + 1024,
    // One of the two forms of ref_audio plus the short text fields, headers and boundaries.
    maxBodyBytes: MAX_INLINE_MEDIA_SIZE + 1024 + 64 * 1024,
  });
  for (const name of ['ref_text', 'description'] as const) {
    if (form.files[name]) throw new InvalidRequestError(`'${name}' must be a text field, not a file.`, name);
  }
  const refAudio = form.files.ref_audio?.bytes ?? form.fields.ref_audio;
  if (refAudio === undefined) throw new MissingParameterError('ref_audio');
  return { refAudio, refText: form.fields.ref_text ?? null, description: form.fields.description ?? null };
}
