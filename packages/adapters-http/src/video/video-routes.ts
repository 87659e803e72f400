import { Readable } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import {
  InvalidJsonError,
  InvalidRequestError,
  MAX_INLINE_MEDIA_SIZE,
  parseCallerJson,
  toVideoResource,
  type CreateVideo,
  type DeleteVideo,
  type GetVideo,
  type GetVideoContent,
  type ListVideos,
  type StreamVideo,
  type VideoPage,
  type VideoRequestInput,
} from '@svc/core';
import type { AppState, RouteModule } from '../app-state.js';
import { readJsonBody } from '../body/json-body.js';
import { clientGone } from '../errors/error-middleware.js';
import { HttpLibraryError } from '../errors/http-status.js';
import { isMultipart, readMultipartForm } from '../multipart/multipart-form.js';
import { pageParameters } from '../openapi/openapi-registry.js';
import { clientDisconnectSignal } from '../routing/client-disconnect.js';
import type { RouteTable } from '../routing/route-table.js';
import { parseRequest } from '../validation/parse-request.js';
import {
  videoContentQuerySchema,
  videoCreateFields,
  videoCreateMultipartSchema,
  videoCreateSchema,
  videoDeletedSchema,
  videoListQuerySchema,
  videoListSchema,
  videoSchema,
} from './video-schema.js';

export interface VideoRoutesDeps {
  create: CreateVideo;
  stream: StreamVideo;
  get: GetVideo;
  content: GetVideoContent;
  list: ListVideos;
  remove: DeleteVideo;
  /** JSON bodies carry a base64 image and a base64 audio of up to 10 MB each. */
  jsonBodyLimit: number;
  /** Per-key admission for creation (each one decodes media, detects a face and may synthesize speech). */
  rateLimit?: Middleware<AppState>;
}

type VideoContext = Context & { state: AppState; params: Record<string, string> };

const CREATE_FIELDS = ['ref_image', 'model', 'input', 'input_tts', 'size'] as const;

const CREATE_ERRORS =
  'video_input_conflict, video_input_missing, invalid_video_size, invalid_video_model, invalid_image, image_dimensions_too_large, no_face_detected, invalid_audio, video_input_too_long, input_tts_too_long, input_tts_stream_unsupported, media_empty, invalid_base64, invalid_media_url, media_url_not_allowed, media_fetch_failed, media_fetch_timeout, missing_required_parameter, unknown_parameter, invalid_parameter, and every error of POST /v1/audio/speech for input_tts (input_too_long, input_empty, voice_conflict, voice_not_found...)';

/** The video endpoints: create, stream, get, content, list, delete. */
export function videoRoutes(deps: VideoRoutesDeps): RouteModule {
  const rateLimit = deps.rateLimit ? [deps.rateLimit] : [];
  const idParam = { name: 'id', in: 'path' as const, description: 'Video id (video_...)', schema: z.string() };
  const requestBody = { 'application/json': videoCreateSchema, 'multipart/form-data': videoCreateMultipartSchema };
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'post',
        path: '/v1/videos',
        summary: 'Create a talking-head video (job)',
        description:
          'Checks the request (every refusal is a 400 before a job exists), stores it as a queued job and returns it; poll GET /v1/videos/{id}, then download /content.',
        tags: ['videos'],
        requestBody,
        responses: {
          '200': { description: 'The queued video', content: { 'application/json': videoSchema } },
          '400': { description: CREATE_ERRORS },
          '413': { description: 'media_too_large: an inline payload or upload over 10 MB' },
        },
        handlers: [
          ...rateLimit,
          async (ctx) => {
            // The body is read only once the key is under its limit of pending videos (a 429 reads nothing).
            const request = () => readCreateRequest(ctx as VideoContext, deps);
            const job = await deps.create.execute(ctx.state.principal, request, clientDisconnectSignal(ctx, 'headers'));
            ctx.status = 200;
            ctx.body = toVideoResource(job);
          },
        ],
      });
      routes.add({
        method: 'post',
        path: '/v1/videos/stream',
        summary: 'Create a video and stream it as fragmented MP4',
        description:
          'Same body and checks as POST /v1/videos. The body is a live fragmented MP4 (H.264 constrained baseline + AAC-LC, a first fragment of one frame, then 1 s fragments) for Media Source Extensions; the id is in X-Video-Id and the same video is stored and downloadable later. A client that disconnects does not stop the stored video.',
        tags: ['videos'],
        requestBody,
        responses: {
          '200': {
            description: 'Fragmented MP4 bytes',
            content: { 'video/mp4': null },
            headers: { 'X-Video-Id': 'id of the stored video' },
          },
          '400': { description: CREATE_ERRORS },
          '413': { description: 'media_too_large' },
          '429': {
            description:
              'concurrency_limit_exceeded: this server already renders its maximum of live streams (Retry-After); rate_limit_exceeded',
          },
        },
        handlers: [...rateLimit, (ctx) => stream(ctx as VideoContext, deps)],
      });
      routes.add({
        method: 'get',
        path: '/v1/videos',
        summary: 'List your videos',
        description: 'Videos of the calling key, newest first, in pages (limit, after).',
        tags: ['videos'],
        parameters: pageParameters(videoListQuerySchema),
        responses: { '200': { description: 'A page of videos', content: { 'application/json': videoListSchema } } },
        handlers: [
          async (ctx) => {
            const query = parseRequest(videoListQuerySchema, { ...ctx.query });
            ctx.body = presentList(await deps.list.execute(ctx.state.principal, query));
          },
        ],
      });
      routes.add({
        method: 'get',
        path: '/v1/videos/{id}',
        summary: 'Get a video (status and progress)',
        tags: ['videos'],
        parameters: [idParam],
        responses: {
          '200': { description: 'The video', content: { 'application/json': videoSchema } },
          '404': { description: "video_not_found: unknown or another key's (indistinguishable)" },
        },
        handlers: [
          async (ctx) => {
            refuseStreamRoute(ctx);
            ctx.body = toVideoResource(await deps.get.execute(ctx.state.principal, ctx.params.id!));
          },
        ],
      });
      routes.add({
        method: 'get',
        path: '/v1/videos/{id}/content',
        summary: 'Download the MP4',
        tags: ['videos'],
        parameters: [idParam, { name: 'variant', in: 'query', description: 'Only `video` (the default)', schema: z.string() }],
        responses: {
          '200': { description: 'The MP4', content: { 'video/mp4': null } },
          '400': { description: 'invalid_video_variant' },
          '404': { description: 'video_not_ready (not completed yet, or failed); video_not_found' },
        },
        handlers: [
          async (ctx) => {
            const query = parseRequest(videoContentQuerySchema, { ...ctx.query });
            const bytes = await deps.content.execute(ctx.state.principal, ctx.params.id!, query.variant);
            ctx.status = 200;
            ctx.type = 'video/mp4';
            ctx.set('Content-Disposition', `attachment; filename="${ctx.params.id}.mp4"`);
            ctx.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          },
        ],
      });
      routes.add({
        method: 'delete',
        path: '/v1/videos/{id}',
        summary: 'Delete a video',
        description: 'Removes the record and its files (inputs and MP4); a render in progress stops.',
        tags: ['videos'],
        parameters: [idParam],
        responses: {
          '200': { description: 'Deleted', content: { 'application/json': videoDeletedSchema } },
          '404': { description: 'video_not_found' },
        },
        handlers: [
          async (ctx) => {
            refuseStreamRoute(ctx);
            const { id } = await deps.remove.execute(ctx.state.principal, ctx.params.id!);
            ctx.body = { id, object: 'video.deleted', deleted: true };
          },
        ],
      });
    },
  };
}

/**
 * The stream: the request is checked and stored (errors are still REST errors: nothing has been
 * sent), then the headers go out with the id and the fragments follow as they are encoded. A client
 * that disconnects stops only its copy; the stored video completes.
 */
async function stream(ctx: VideoContext, deps: VideoRoutesDeps): Promise<void> {
  const receivedAt = Date.now();
  // The body is read only once the stream has a slot (a refused stream costs no body read).
  const { job, fragments } = await deps.stream.execute(
    ctx.state.principal,
    () => readCreateRequest(ctx, deps),
    clientDisconnectSignal(ctx, 'headers'),
    { receivedAt },
  );
  ctx.status = 200;
  ctx.type = 'video/mp4';
  ctx.set('X-Video-Id', job.id);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = Readable.from(toBuffers(fragments), { objectMode: false });
  // A failure after the headers can only end the body early; the job record says why. A client
  // that leaves is normal (its copy stops, the stored video completes): info, not a warning.
  (ctx.body as Readable).on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || clientGone(ctx.req, ctx.res))
      ctx.state.log.info({ video: job.id }, 'video stream: the client left; the video completes in the background');
    else ctx.state.log.warn({ video: job.id, err: String(err) }, 'video stream ended early');
  });
}

/**
 * `/v1/videos/stream` is a route of its own (POST only), but `/v1/videos/{id}` also matches it, so a
 * GET, HEAD or DELETE there would reach the video lookup and answer "no video 'stream'". It is a
 * known route with another method: 405, as for any other route (no video id has this form).
 */
function refuseStreamRoute(ctx: Context & { params: Record<string, string> }): void {
  if (ctx.params.id !== 'stream') return;
  ctx.set('Allow', 'POST');
  throw new HttpLibraryError('method_not_allowed', 405, `${ctx.method} is not allowed on /v1/videos/stream; it only takes POST.`);
}

async function* toBuffers(fragments: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  for await (const f of fragments) yield Buffer.from(f.buffer, f.byteOffset, f.byteLength);
}

async function readCreateRequest(ctx: VideoContext, deps: VideoRoutesDeps): Promise<VideoRequestInput> {
  if (!isMultipart(ctx)) return parseRequest(videoCreateSchema, await readJsonBody(ctx, deps.jsonBodyLimit, { orMultipart: true }));
  const form = await readMultipartForm(ctx, {
    allowed: CREATE_FIELDS,
    maxFileBytes: MAX_INLINE_MEDIA_SIZE,
    // A base64 text field may be up to the inline cap plus a data-URI header.
    maxFieldBytes: MAX_INLINE_MEDIA_SIZE + 1024,
    // Two media parts (ref_image and input, or input_tts with an inline ref_audio) plus the small fields.
    maxBodyBytes: 2 * (MAX_INLINE_MEDIA_SIZE + 1024) + 64 * 1024,
  });
  for (const name of ['model', 'size', 'input_tts'] as const) {
    if (form.files[name]) throw new InvalidRequestError(`'${name}' must be a text field, not a file.`, name);
  }
  let inputTts: unknown = undefined;
  if (form.fields.input_tts !== undefined) {
    try {
      inputTts = parseCallerJson(form.fields.input_tts);
    } catch {
      throw new InvalidJsonError("'input_tts' must be a JSON object (the speech request).", 'input_tts');
    }
  }
  const text = parseRequest(z.strictObject({ ...videoCreateFields, ref_image: videoCreateFields.ref_image.optional() }), {
    ...form.fields,
    ...(inputTts !== undefined ? { input_tts: inputTts } : {}),
  });
  return {
    ...text,
    ref_image: form.files.ref_image?.bytes ?? text.ref_image,
    input: form.files.input?.bytes ?? text.input,
  };
}

function presentList(page: VideoPage) {
  return {
    object: 'list' as const,
    data: page.videos.map(toVideoResource),
    has_more: page.hasMore,
    first_id: page.videos[0]?.id ?? null,
    last_id: page.videos.at(-1)?.id ?? null,
  };
}
