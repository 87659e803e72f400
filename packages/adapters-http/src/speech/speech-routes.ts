import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { CONTENT_TYPES, validateSpeechRequest, type SynthesizeSpeech, type VoiceCatalog, type SpeechResult } from '@svc/core';
import { sendEventStream } from '../sse/event-stream.js';
import { speechEvents } from './speech-events.js';
import type { AppState, RouteModule } from '../app-state.js';
import { readJsonBody } from '../body/json-body.js';
import { clientDisconnectSignal } from '../routing/client-disconnect.js';
import type { RouteTable } from '../routing/route-table.js';
import { parseRequest } from '../validation/parse-request.js';
import { presetListSchema, speechRequestSchema, speechTimestampsResponseSchema } from './speech-schema.js';
import type { Middleware } from 'koa';

export interface SpeechRoutesDeps {
  synthesize: SynthesizeSpeech;
  catalog: VoiceCatalog;
  jsonBodyLimit: number;
  /** Applied to synthesis (public preview: rate-limited per key). */
  rateLimit: Middleware<AppState>;
  /** Accept OpenAI's speech model names (SVC_OPENAI_MODEL_ALIASES). */
  openAiModelAliases?: boolean;
}

/** POST /v1/audio/speech and GET /v1/audio/presets. */
export function speechRoutes(deps: SpeechRoutesDeps): RouteModule {
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'post',
        path: '/v1/audio/speech',
        summary: 'Synthesize speech',
        description:
          'Returns audio bytes in response_format (Content-Type follows it). With stream=true and response_format=pcm, raw 24 kHz s16le PCM is written as each sentence is synthesized. With stream_format=sse, text/event-stream: speech.audio.delta events ({type, audio: base64}) as the audio is produced, then speech.audio.done ({type, usage}). With timestamps=true, JSON with base64 audio and word timings.',
        tags: ['speech'],
        requestBody: { 'application/json': speechRequestSchema },
        responses: {
          '200': {
            description: 'Audio (or JSON with timestamps=true)',
            content: {
              ...Object.fromEntries(Object.values(CONTENT_TYPES).map((t) => [t, null])),
              'application/json': speechTimestampsResponseSchema,
              'text/event-stream': null,
            },
            headers: {
              'X-Voice': 'preset that rendered the speech (for an alias such as alloy, the voice it stands for)',
              'X-Language':
                "language spoken (a lower-case tag: en, ja, pt-br): tn_language, else detected from the text for the default voice, else the named preset's own",
              'X-Sample-Rate': 'sample rate in Hz',
              'X-Instructions-Applied': 'with instructions: the inline tags they became (e.g. "emotion:calm, prosody:slow"), or "none"',
            },
          },
          '400': {
            description:
              'Invalid request (input_too_long, input_empty, stream_requires_pcm, voice_conflict, voice_language_unsupported, invalid_parameter for model / stream_format / instructions, ...)',
          },
          '404': { description: 'voice_not_found' },
          '429': { description: 'rate_limit_exceeded (Retry-After header)' },
        },
        handlers: [deps.rateLimit, (ctx) => synthesize(ctx, deps)],
      });
      routes.add({
        method: 'get',
        path: '/v1/audio/presets',
        summary: 'List preset voices',
        tags: ['speech'],
        responses: { '200': { description: 'Preset voices', content: { 'application/json': presetListSchema } } },
        handlers: [
          (ctx) => {
            ctx.body = {
              object: 'list',
              data: [
                {
                  voice: 'default',
                  language: 'auto',
                  gender: 'neutral',
                  engine: 'auto',
                  description: 'Picks a voice for the language of the input (Flite slt for English)',
                },
                ...deps.catalog
                  .list()
                  .map((v) => ({ voice: v.name, language: v.language, gender: v.gender, engine: v.engine, description: v.description })),
                // OpenAI's names: what each stands for (in English; another tn_language picks that language's voice).
                ...deps.catalog.aliases().map((a) => ({
                  voice: a.name,
                  language: a.target.language,
                  gender: a.gender,
                  engine: a.target.engine,
                  description: `${a.description}; alias of ${a.target.name}`,
                  alias_of: a.target.name,
                })),
              ],
            };
          },
        ],
      });
    },
  };
}

async function synthesize(ctx: Context & { state: AppState }, deps: SpeechRoutesDeps): Promise<void> {
  const body = parseRequest(speechRequestSchema, await readJsonBody(ctx, deps.jsonBodyLimit));
  const request = validateSpeechRequest(body, { openAiModelAliases: deps.openAiModelAliases ?? false });

  // A client that goes away stops the synthesis and the encoder.
  const result = await deps.synthesize.execute(request, ctx.state.principal, clientDisconnectSignal(ctx));
  ctx.set('X-Voice', result.voice.name);
  ctx.set('X-Language', result.language);
  ctx.set('X-Sample-Rate', String(result.sampleRate));
  if (result.appliedInstructions) ctx.set('X-Instructions-Applied', result.appliedInstructions.join(', ') || 'none');

  if (request.streamFormat === 'sse') {
    await sendEventStream(ctx, speechEvents(result, request.input));
    return;
  }

  if (request.timestamps) {
    const chunks: Buffer[] = [];
    for await (const chunk of result.body) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    ctx.body = timestampsBody(result, Buffer.concat(chunks));
    return;
  }
  // Pull the first chunk before committing the status, so a failure in the first sentence is
  // still a proper error response; everything after it streams as it is produced.
  const iterator = result.body[Symbol.asyncIterator]();
  const first = await iterator.next();
  ctx.status = 200;
  ctx.type = result.contentType;
  ctx.set('Cache-Control', 'no-store');
  if (request.stream) ctx.set('X-Accel-Buffering', 'no');
  ctx.body = Readable.from(resume(first, iterator), { objectMode: false });
}

async function* resume(first: IteratorResult<Uint8Array>, rest: AsyncIterator<Uint8Array>): AsyncGenerator<Buffer> {
  try {
    if (first.done) return;
    yield toBuffer(first.value);
    for (let r = await rest.next(); !r.done; r = await rest.next()) yield toBuffer(r.value);
  } finally {
    await rest.return?.();
  }
}

const toBuffer = (chunk: Uint8Array): Buffer => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

function timestampsBody(result: SpeechResult, audio: Buffer) {
  const duration = result.stats.samples / result.sampleRate;
  return {
    audio: audio.toString('base64'),
    content_type: result.contentType,
    sample_rate: result.sampleRate,
    duration,
    voice: result.voice.name,
    language: result.language,
    words: result.words.map((w) => ({ word: w.word, start: round3(w.start), end: round3(w.end) })),
  };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
