import { createRequire } from 'node:module';
import type OpenAI from 'openai';
import { EngineError, InsufficientQuotaError, type LanguageModel, type LanguageModelEvent, type LanguageModelRequest } from '@svc/core';
import { chatCompletionsBody } from './chat-completions-request.js';
import { readServerSentEvents } from './server-sent-events.js';
import { ToolCallAssembler, type ToolCallDelta } from './tool-call-assembler.js';

/**
 * The openai SDK, loaded with the first upstream client: a server on the embedded demo model (no
 * SVC_LLM_BASE_URL) never loads it, which keeps the SDK's modules out of its idle memory
 * (docs/deployment.md, Memory and warm-up).
 */
const openAi = (): typeof OpenAI => (createRequire(import.meta.url)('openai') as { OpenAI: typeof OpenAI }).OpenAI;

export interface OpenAiCompatibleLanguageModelOptions {
  /** e.g. `http://localhost:8080/v1` (llama.cpp), `http://localhost:11434/v1` (Ollama), `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer`; local servers usually need none. */
  apiKey?: string;
  contextWindowTokens?: number;
  /** Gives up when no response headers arrive in time (the stream itself may run longer). */
  connectTimeoutMs?: number;
  fetch?: typeof fetch;
}

/** The upstream's error object: `APIError.error` for an HTTP error, `error` of a chunk inside the stream. */
interface UpstreamError {
  message?: unknown;
  type?: unknown;
  code?: unknown;
}

interface ChatCompletionChunk {
  choices?: { delta?: { content?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[];
  error?: UpstreamError;
}

/**
 * The real language model path: any server speaking the chat-completions API with streaming. The
 * exchange is the `openai` SDK's (typed request, authentication, connect timeout, HTTP errors as typed
 * errors, cancellation); the streamed body is read here with eventsource-parser, because the SDK's
 * reader drops a last event no blank line closes and costs more per stream when a reply arrives in
 * few reads (docs/benchmarks.md, language-model). Tool-call fragments are assembled here too: servers
 * split names and send arguments ahead of ids in ways the SDK's own helper does not join. Upstream
 * failures become EngineError (billing refusals InsufficientQuotaError) so the realtime engine reports
 * them and ends the response cleanly.
 */
export class OpenAiCompatibleLanguageModel implements LanguageModel {
  readonly id: string;
  readonly contextWindowTokens: number;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiCompatibleLanguageModelOptions) {
    this.id = `openai-compatible:${options.model}`;
    this.contextWindowTokens = options.contextWindowTokens ?? 8192;
    this.client = new (openAi())({
      baseURL: options.baseUrl.replace(/\/+$/, ''),
      // Given explicitly so the SDK reads none of OPENAI_API_KEY / OPENAI_ORG_ID / OPENAI_PROJECT_ID
      // from the environment (they belong to another upstream). Without a key, no Authorization
      // header at all: the SDK requires a key, so it gets a placeholder that is then removed.
      apiKey: options.apiKey || 'none',
      organization: null,
      project: null,
      ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
      // One attempt: a retry would repeat a reply the user may already be hearing; the engine reports
      // the failure instead.
      maxRetries: 0,
      timeout: options.connectTimeoutMs ?? 30_000,
      logLevel: 'off',
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  async *stream(request: LanguageModelRequest): AsyncIterable<LanguageModelEvent> {
    const response = await this.open(request);
    if (!response.body) throw new EngineError('The language model returned an empty response.');
    const tools = new ToolCallAssembler();
    let finished = false;
    try {
      for await (const data of readServerSentEvents(response.body as unknown as AsyncIterable<Uint8Array>)) {
        if (data.trim() === '[DONE]') {
          finished = true;
          break;
        }
        const chunk = parseChunk(data);
        if (chunk.error) throw upstreamError(chunk.error, undefined);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const content = choice.delta?.content;
        if (content) yield { type: 'text', delta: content };
        if (choice.delta?.tool_calls) yield* tools.push(choice.delta.tool_calls);
        if (choice.finish_reason) finished = true;
      }
    } catch (err) {
      if (request.signal.aborted || err instanceof EngineError || err instanceof InsufficientQuotaError) throw err;
      throw new EngineError(`The language model stream failed: ${errorMessage(err)}`);
    }
    if (!finished && !request.signal.aborted) throw new EngineError('The language model stream ended before the reply was complete.');
    yield* tools.finish();
  }

  /**
   * Sends the request; resolves with the response once its headers are in (the connect timeout
   * covers only that). An error status has been turned into an error by then.
   */
  private async open(request: LanguageModelRequest): Promise<Response> {
    try {
      return await this.client.chat.completions
        .create(chatCompletionsBody(this.options.model, request), { signal: request.signal })
        .asResponse();
    } catch (err) {
      if (request.signal.aborted) throw err;
      const sdk = openAi();
      if (err instanceof sdk.APIConnectionTimeoutError) throw this.unreachable('no answer in time');
      if (err instanceof sdk.APIConnectionError) throw this.unreachable(errorMessage(err));
      if (err instanceof sdk.APIError) throw upstreamError((err.error ?? {}) as UpstreamError, err);
      throw this.unreachable(errorMessage(err));
    }
  }

  private unreachable(reason: string): EngineError {
    return new EngineError(`The language model at ${this.options.baseUrl} is unreachable: ${reason}`);
  }
}

function parseChunk(data: string): ChatCompletionChunk {
  try {
    return JSON.parse(data) as ChatCompletionChunk;
  } catch {
    throw new EngineError('The language model sent a malformed stream chunk.');
  }
}

/**
 * An error the upstream answered with: an HTTP error status (`http`, the SDK's APIError) or an `error`
 * object inside the stream. Billing refusals keep their own identifier.
 */
function upstreamError(upstream: UpstreamError, http: InstanceType<typeof OpenAI.APIError> | undefined): Error {
  const status = http?.status;
  // The upstream's own message; for a body that was not JSON the SDK's message is "<status> <text>".
  const message =
    (typeof upstream.message === 'string' && upstream.message) ||
    (http ? http.message.replace(new RegExp(`^${status}\\s*`), '').slice(0, 300) : '') ||
    `HTTP ${status}`;
  if (upstream.code === 'insufficient_quota' || upstream.type === 'insufficient_quota') return new InsufficientQuotaError(message);
  return new EngineError(status ? `The language model answered ${status}: ${message}` : `The language model failed: ${message}`);
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.cause instanceof Error ? `${err.message} (${err.cause.message})` : err.message;
  return String(err);
}
