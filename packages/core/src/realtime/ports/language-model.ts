/**
 * The realtime "brain": a chat model that streams tokens and tool calls. The default adapters are
 * an OpenAI-compatible chat-completions client (llama.cpp server, Ollama, vLLM, hosted APIs) and a
 * small deterministic embedded demo model for offline use and tests.
 */
export interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface LanguageModelTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export type LanguageModelToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

export interface LanguageModelRequest {
  messages: ChatMessage[];
  tools: LanguageModelTool[];
  toolChoice: LanguageModelToolChoice;
  temperature: number;
  /** Null: no limit. */
  maxOutputTokens: number | null;
  /** Aborted when the response is cancelled or the session ends; the stream must stop promptly. */
  signal: AbortSignal;
}

/**
 * What a model streams. Tool calls arrive as one `tool_call` (id and complete name known) followed
 * by `tool_call_arguments` pieces; adapters assemble fragments split across upstream chunks.
 */
export type LanguageModelEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_call'; index: number; callId: string; name: string }
  | { type: 'tool_call_arguments'; index: number; delta: string };

export interface LanguageModel {
  /** For logs and docs, e.g. `embedded-demo` or `openai-compatible:llama3`. */
  readonly id: string;
  /** Tokens of context the model accepts; summarization keeps the conversation under it. */
  readonly contextWindowTokens: number;
  /**
   * Whether the model writes a useful summary when asked to (true when absent). A model that cannot
   * (the embedded demo model only echoes the prompt) gets the deterministic extractive summary.
   */
  readonly canSummarize?: boolean;
  /** Throws (or the iterator throws) on upstream failure; InsufficientQuotaError for billing refusals. */
  stream(request: LanguageModelRequest): AsyncIterable<LanguageModelEvent>;
}
