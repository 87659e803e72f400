import type { LanguageModel } from '../ports/language-model.js';
import { itemText, type ConversationItem } from './items.js';
import { ExtractiveSummarizer, type ConversationSummarizer } from './summarization.js';

const PROMPT =
  'Summarize the following conversation between a user and an assistant in at most five short sentences. ' +
  'Keep names, numbers, decisions and open questions. Write only the summary.';

/**
 * Summaries written by the session's own language model; falls back to the extractive summary if
 * the model fails or returns nothing, so `truncation: auto` never stalls on an upstream problem.
 */
export class LanguageModelSummarizer implements ConversationSummarizer {
  private readonly fallback = new ExtractiveSummarizer();

  constructor(
    private readonly model: LanguageModel,
    private readonly maxOutputTokens = 300,
  ) {}

  async summarize(items: readonly ConversationItem[], signal: AbortSignal): Promise<string> {
    const transcript = items
      .map((item) => {
        const who = item.type === 'message' ? item.role : item.type === 'function_call' ? 'tool call' : 'tool result';
        return `${who}: ${itemText(item)}`;
      })
      .join('\n');
    try {
      let text = '';
      for await (const event of this.model.stream({
        messages: [
          { role: 'system', content: PROMPT },
          { role: 'user', content: transcript },
        ],
        tools: [],
        toolChoice: 'none',
        temperature: 0.2,
        maxOutputTokens: this.maxOutputTokens,
        signal,
      })) {
        if (event.type === 'text') text += event.delta;
      }
      if (text.trim()) return `Summary of the earlier conversation: ${text.trim()}`;
    } catch (err) {
      if (signal.aborted) throw err;
    }
    return this.fallback.summarize(items);
  }
}
