import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import {
  AsyncChannel,
  InvalidParameterError,
  InvalidRequestError,
  MissingParameterError,
  type TranscribeAudio,
  type TranscribeAudioCommand,
} from '@svc/core';
import type { AppState, RouteModule } from '../app-state.js';
import { isMultipart, readMultipartForm } from '../multipart/multipart-form.js';
import { clientDisconnectSignal } from '../routing/client-disconnect.js';
import type { RouteTable } from '../routing/route-table.js';
import { sendEventStream } from '../sse/event-stream.js';
import { presentTranscript, TRANSCRIPTION_FORMATS, type TranscriptionFormat } from './transcription-presenter.js';
import { transcriptDoneEvent } from './transcription-events.js';

export interface TranscriptionRoutesDeps {
  transcribe: TranscribeAudio;
  /** Largest upload accepted (refused while it streams in, before any decoding). */
  maxFileBytes: number;
  maxDurationSeconds: number;
  rateLimit?: Middleware<AppState>;
}

const GRANULARITIES = 'timestamp_granularities[]';
/** `prompt` holds at most this many bytes (UTF-8), inclusive; more is a 400 invalid_parameter. */
export const MAX_PROMPT_BYTES = 4096;
/** Every other text field (model, language, ...) is short: over this it is a 413. */
const MAX_FIELD_BYTES = 4096;
/** `temperature` is accepted for compatibility and not used (greedy first, Whisper's own temperature fallback after); `prompt` goes to engines that take it (Whisper). */
const FIELDS = ['file', 'model', 'language', 'response_format', 'prompt', 'temperature', 'stream', GRANULARITIES] as const;
/** The formats a streamed transcription can have (its events carry text only, as OpenAI's do). */
const STREAMABLE_FORMATS: readonly TranscriptionFormat[] = ['json', 'text'];

/**
 * POST /v1/audio/transcriptions: an extension beyond the service interface, in the shape clients of
 * OpenAI-compatible servers send (multipart `file`, `model`, `language`, `response_format`,
 * `timestamp_granularities[]`). Any `model` value is accepted: the server's one recognizer answers.
 */
export function transcriptionRoutes(deps: TranscriptionRoutesDeps): RouteModule {
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'post',
        path: '/v1/audio/transcriptions',
        summary: 'Transcribe a recording (extension)',
        description: `Beyond the service interface: speech to text with the server's recognizer (SVC_ASR_ENGINE), in the shape of OpenAI-compatible transcription servers. Upload at most ${Math.round(deps.maxFileBytes / 1048576)} MB and ${deps.maxDurationSeconds} s of audio (any format ffmpeg decodes). Any 'model' value is accepted.`,
        tags: ['transcription'],
        requestBody: {
          'multipart/form-data': z.object({
            file: z.string().describe('The recording (binary part)'),
            model: z.string().optional().describe('Accepted and ignored: the server has one recognizer'),
            language: z.string().optional().describe('ISO 639-1 hint, e.g. en'),
            response_format: z.enum(TRANSCRIPTION_FORMATS).optional().describe('json (default), text, verbose_json, srt, vtt'),
            prompt: z
              .string()
              .optional()
              .describe(
                `Whisper: earlier context (names, spellings), fed as <|startofprev|> tokens; other engines ignore it. At most ${MAX_PROMPT_BYTES} bytes (UTF-8); more is a 400 invalid_parameter`,
              ),
            temperature: z
              .number()
              .optional()
              .describe(
                "Accepted and ignored: decoding is greedy first, then Whisper's temperature fallback (0.2 to 1.0) for a window too repetitive or unlikely",
              ),
            stream: z
              .boolean()
              .optional()
              .describe(
                'true: text/event-stream of transcript.text.delta events as text is decoded (pocketsphinx streams; other engines send one delta at the end), then transcript.text.done with usage; json and text formats only',
              ),
            'timestamp_granularities[]': z
              .array(z.enum(['word', 'segment']))
              .optional()
              .describe('verbose_json only; words where the engine times them'),
          }),
        },
        responses: {
          '200': {
            description:
              'The transcript: {text, usage} for json; task, language, duration, text, segments (id, seek, start, end, text, tokens, temperature, avg_logprob, compression_ratio, no_speech_prob), words and usage for verbose_json; events with stream=true',
            content: { 'application/json': null, 'text/plain': null, 'text/event-stream': null },
          },
          '400': {
            description:
              'invalid_audio, media_empty, audio_too_long, invalid_parameter, missing_required_parameter, unknown_parameter, invalid_request_error',
          },
          '413': { description: 'media_too_large / payload_too_large: the upload is over the limit' },
          '503': { description: 'transcription_unavailable: no recognizer runs on this server' },
        },
        handlers: [...(deps.rateLimit ? [deps.rateLimit] : []), (ctx) => transcribe(ctx, deps)],
      });
    },
  };
}

async function transcribe(ctx: Context & { state: AppState }, deps: TranscriptionRoutesDeps): Promise<void> {
  if (!isMultipart(ctx)) throw new InvalidRequestError("The body must be multipart/form-data with the recording in a 'file' part.");
  const form = await readMultipartForm(ctx, {
    allowed: FIELDS,
    repeatable: [GRANULARITIES],
    maxFileBytes: deps.maxFileBytes,
    maxFieldBytes: MAX_FIELD_BYTES,
    fieldLimits: { prompt: MAX_PROMPT_BYTES },
    maxBodyBytes: deps.maxFileBytes + 64 * 1024,
  });
  for (const name of FIELDS) {
    if (name !== 'file' && form.files[name]) throw new InvalidRequestError(`'${name}' must be a text field, not a file.`, name);
  }
  const file = form.files.file;
  if (!file && form.fields.file !== undefined) {
    throw new InvalidRequestError("'file' must be a file part (curl -F file=@clip.wav), not a text field.", 'file');
  }
  if (!file) throw new MissingParameterError('file');
  const language = form.fields.language?.trim() || null;
  if (language !== null && !/^[a-z]{2,3}$/i.test(language)) {
    throw new InvalidParameterError(`'language' must be an ISO 639-1 code such as 'en' (got '${language.slice(0, 20)}').`, 'language');
  }
  const format = (form.fields.response_format ?? 'json') as TranscriptionFormat;
  if (!TRANSCRIPTION_FORMATS.includes(format)) {
    throw new InvalidParameterError(`'response_format' must be one of ${TRANSCRIPTION_FORMATS.join(', ')}.`, 'response_format');
  }
  const granularities = form.lists[GRANULARITIES] ?? [];
  for (const g of granularities) {
    if (g !== 'word' && g !== 'segment')
      throw new InvalidParameterError(`'${GRANULARITIES}' values must be 'word' or 'segment'.`, GRANULARITIES);
  }
  if (granularities.length > 0 && format !== 'verbose_json') {
    throw new InvalidParameterError(`'${GRANULARITIES}' needs response_format 'verbose_json'.`, GRANULARITIES);
  }
  if (form.fields.temperature !== undefined && !(Number(form.fields.temperature) >= 0 && Number(form.fields.temperature) <= 1)) {
    throw new InvalidParameterError("'temperature' must be a number between 0 and 1.", 'temperature');
  }
  const stream = parseStream(form.fields.stream);
  if (stream && !STREAMABLE_FORMATS.includes(format)) {
    throw new InvalidParameterError(`'stream' needs response_format 'json' or 'text' (the events carry text only).`, 'stream');
  }
  const signal = clientDisconnectSignal(ctx);
  const command: TranscribeAudioCommand = {
    file: file.bytes,
    language: language?.toLowerCase() ?? null,
    ...(form.fields.prompt?.trim() ? { prompt: form.fields.prompt } : {}),
  };
  if (stream) {
    await sendEventStream(ctx, transcriptionEvents(deps.transcribe, ctx.state, command, signal));
    return;
  }
  const transcript = await deps.transcribe.execute(ctx.state.principal, command, signal);
  // Segments come by default, words only when asked for (as the API this follows does).
  const { body, type } = presentTranscript(
    transcript,
    format,
    granularities.includes('word'),
    granularities.length === 0 || granularities.includes('segment'),
  );
  ctx.type = type;
  ctx.body = body;
}

/** Multipart booleans arrive as text: OpenAI's SDKs send `true` / `false`. */
function parseStream(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new InvalidParameterError("'stream' must be 'true' or 'false'.", 'stream');
}

/**
 * OpenAI's transcription events: `transcript.text.delta` as text is decoded (pocketsphinx reports
 * words as they settle; engines that cannot stream give one delta with the whole text at the end),
 * then `transcript.text.done` with the text and usage. The final text wins: when the engine's last
 * pass revised a word already sent, the remaining deltas are not sent and `done` has the text.
 */
async function* transcriptionEvents(
  transcribe: TranscribeAudio,
  state: AppState,
  command: TranscribeAudioCommand,
  signal: AbortSignal,
): AsyncGenerator<object> {
  const queue = new AsyncChannel<object>();
  let sent = '';
  const delta = (text: string): void => {
    sent += text;
    queue.push({ type: 'transcript.text.delta', delta: text });
  };
  transcribe
    .execute(state.principal, { ...command, onText: delta }, signal)
    .then((result) => {
      if (result.text.length > sent.length && result.text.startsWith(sent)) delta(result.text.slice(sent.length));
      queue.push(transcriptDoneEvent(result, command.prompt));
      queue.end();
    })
    .catch((err: unknown) => queue.fail(err));
  yield* queue;
}
