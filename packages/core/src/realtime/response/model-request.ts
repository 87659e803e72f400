import type { ConversationItem } from '../conversation/items.js';
import { buildModelMessages } from '../conversation/model-context.js';
import { estimateTokens, fitToContextWindow } from '../conversation/summarization.js';
import type { LanguageModel, LanguageModelRequest } from '../ports/language-model.js';
import { outputTokenLimit, type RealtimeSessionConfig } from '../session/session-config.js';
import type { ResponseOverrides } from './response-overrides.js';

/**
 * What the language model is asked for a response: the session's configuration with the
 * response's overrides, over the conversation's items (cut to the context window with
 * `truncation: auto`). A response and a reply prepared ahead of it (speculation) build it the same
 * way, so the two can be compared.
 */
export function modelRequest(
  items: readonly ConversationItem[],
  config: RealtimeSessionConfig,
  overrides: ResponseOverrides,
  languageModel: Pick<LanguageModel, 'contextWindowTokens'>,
  signal: AbortSignal,
): LanguageModelRequest {
  const instructions = overrides.instructions ?? config.instructions;
  const maxOutputTokens = outputTokenLimit(overrides.maxOutputTokens ?? config.max_output_tokens);
  let fitted = [...items];
  if (config.truncation === 'auto') {
    const reserve = Math.min(maxOutputTokens ?? 1024, Math.floor(languageModel.contextWindowTokens / 4));
    fitted = fitToContextWindow(fitted, estimateTokens(instructions), languageModel.contextWindowTokens, reserve);
  }
  return {
    messages: buildModelMessages(instructions, fitted),
    tools: (overrides.tools ?? config.tools).map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    })),
    toolChoice: overrides.toolChoice ?? config.tool_choice,
    temperature: overrides.temperature ?? config.temperature,
    maxOutputTokens,
    signal,
  };
}
