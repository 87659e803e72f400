import { EngineError, InsufficientQuotaError, type LanguageModel, type LanguageModelEvent, type LanguageModelRequest } from '@svc/core';
import { chatCompletionsBody } from './chat-completions-request.js';
import { readServerSentEvents } from './server-sent-events.js';
import { ToolCallAssembler, type ToolCallDelta } from './tool-call-assembler.js';

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

interface ChatCompletionChunk {
  choices?: { delta?: { content?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[];
  error?: { message?: string; type?: string; code?: string | number | null };
}

/**
 * The real language model path: any server speaking the chat-completions API with streaming.
 * Cancellation aborts the HTTP request; upstream failures become EngineError (billing refusals
 * InsufficientQuotaError) so the realtime engine reports them and ends the response cleanly.
 */
export class OpenAiCompatibleLanguageModel implements LanguageModel {
  readonly id: string;
  readonly contextWindowTokens: number;
  private readonly url: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: OpenAiCompatibleLanguageModelOptions) {
    this.id = `openai-compatible:${options.model}`;
    this.contextWindowTokens = options.contextWindowTokens ?? 8192;
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.fetchImpl = options.fetch ?? fetch;
  }

  async *stream(request: LanguageModelRequest): AsyncIterable<LanguageModelEvent> {
    const response = await this.post(request);
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
        if (chunk.error) throw upstreamError(chunk.error, 200);
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

  private async post(request: LanguageModelRequest): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    // One controller for the whole exchange: cancelled with the response, or when the server
    // sends no headers in time (the streamed body itself may take as long as it needs).
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal.reason);
    request.signal.addEventListener('abort', onAbort, { once: true });
    if (request.signal.aborted) controller.abort(request.signal.reason);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.connectTimeoutMs ?? 30_000);
    let response: Response;
    try {
      response = await this.fetchImpl(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(chatCompletionsBody(this.options.model, request)),
        signal: controller.signal,
      });
    } catch (err) {
      request.signal.removeEventListener('abort', onAbort);
      if (request.signal.aborted) throw err;
      const reason = timedOut ? 'no answer in time' : errorMessage(err);
      throw new EngineError(`The language model at ${this.options.baseUrl} is unreachable: ${reason}`);
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      let parsed: ChatCompletionChunk = {};
      try {
        parsed = JSON.parse(text) as ChatCompletionChunk;
      } catch {
        // Not JSON: report the status and the beginning of the body.
      }
      throw upstreamError(parsed.error ?? { message: text.slice(0, 300) || response.statusText }, response.status);
    }
    return response;
  }
}

function parseChunk(data: string): ChatCompletionChunk {
  try {
    return JSON.parse(data) as ChatCompletionChunk;
  } catch {
    throw new EngineError('The language model sent a malformed stream chunk.');
  }
}

function upstreamError(error: NonNullable<ChatCompletionChunk['error']>, status: number): Error {
  const message = error.message || `HTTP ${status}`;
  if (error.code === 'insufficient_quota' || error.type === 'insufficient_quota') return new InsufficientQuotaError(message);
  return new EngineError(status === 200 ? `The language model failed: ${message}` : `The language model answered ${status}: ${message}`);
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.cause instanceof Error ? `${err.message} (${err.cause.message})` : err.message;
  return String(err);
}
