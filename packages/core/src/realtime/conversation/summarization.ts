import { itemText, type ConversationItem } from './items.js';

/**
 * Background summarization for `truncation: auto`. Token counts are estimates (about four
 * characters per token plus a few tokens of framing per message), which is what the common
 * chat tokenizers average on English text; no tokenizer is needed in the core.
 */
export const CHARS_PER_TOKEN = 4;
export const TOKENS_PER_MESSAGE = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateItemTokens(item: ConversationItem): number {
  return estimateTokens(itemText(item)) + TOKENS_PER_MESSAGE;
}

export interface SummarizationPolicy {
  /** Summarize once the estimate passes this share of the context window. */
  triggerRatio: number;
  /** Condense the oldest items until the estimate is under this share. */
  targetRatio: number;
  /** The most recent items are never condensed. */
  keepRecentItems: number;
}

export const DEFAULT_SUMMARIZATION_POLICY: SummarizationPolicy = {
  triggerRatio: 0.75,
  targetRatio: 0.4,
  keepRecentItems: 2,
};

/**
 * The items to condense now (oldest first), or an empty list when the conversation fits. The
 * response's own output budget is reserved: a window that fits the prompt but not the reply is full.
 */
export function planSummarization(
  visible: readonly ConversationItem[],
  instructionsTokens: number,
  contextWindowTokens: number,
  policy: SummarizationPolicy = DEFAULT_SUMMARIZATION_POLICY,
): ConversationItem[] {
  const costs = visible.map(estimateItemTokens);
  let total = instructionsTokens + costs.reduce((a, b) => a + b, 0);
  if (total <= contextWindowTokens * policy.triggerRatio) return [];
  const target = contextWindowTokens * policy.targetRatio;
  const condensable = Math.max(0, visible.length - policy.keepRecentItems);
  const chosen: ConversationItem[] = [];
  for (let i = 0; i < condensable && total > target; i++) {
    chosen.push(visible[i]!);
    total -= costs[i]!;
  }
  // A summary of a single short item saves nothing; wait until there is something to condense.
  return chosen.length >= 2 ? chosen : [];
}

/** Produces the text of a summary item. A language-model-backed summarizer can replace it. */
export interface ConversationSummarizer {
  summarize(items: readonly ConversationItem[], signal: AbortSignal): Promise<string>;
}

/**
 * Deterministic summarizer: keeps the first sentence of every condensed turn, labelled by
 * speaker, within a size budget. Honest and cheap; it never invents content.
 */
export class ExtractiveSummarizer implements ConversationSummarizer {
  constructor(private readonly maxChars = 1200) {}

  async summarize(items: readonly ConversationItem[]): Promise<string> {
    const lines: string[] = [];
    for (const item of items) {
      const line = describe(item);
      if (line) lines.push(line);
    }
    let text = `Summary of the earlier conversation: ${lines.join(' ')}`;
    if (text.length > this.maxChars) text = `${text.slice(0, this.maxChars - 1)}…`;
    return text;
  }
}

function describe(item: ConversationItem): string {
  const text = firstSentence(itemText(item));
  switch (item.type) {
    case 'message':
      if (!text) return '';
      // An earlier summary is carried over whole (it is already condensed).
      if (item.role === 'system') return itemText(item).replace(/^Summary of the earlier conversation:\s*/, '');
      return `${item.role === 'user' ? 'User' : 'Assistant'}: "${text}"`;
    case 'function_call':
      return `Assistant called ${item.name}.`;
    case 'function_call_output':
      return `Tool result: "${text}"`;
  }
}

/** The first sentence, cut at a word boundary so a summary stays shorter than what it condenses. */
function firstSentence(text: string, maxChars = 80): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(clean);
  const sentence = m ? m[1]! : clean;
  if (sentence.length <= maxChars) return sentence;
  const cut = sentence.lastIndexOf(' ', maxChars - 1);
  return `${sentence.slice(0, cut > maxChars / 2 ? cut : maxChars - 1)}…`;
}

/**
 * The newest items that fit the window (with room for the reply): a last line of defence while a
 * background summary is still being written. The conversation itself is not changed.
 */
export function fitToContextWindow(
  items: readonly ConversationItem[],
  instructionsTokens: number,
  contextWindowTokens: number,
  reserveTokens: number,
): ConversationItem[] {
  const budget = contextWindowTokens - reserveTokens - instructionsTokens;
  let used = 0;
  let start = items.length;
  while (start > 0) {
    const cost = estimateItemTokens(items[start - 1]!);
    if (used + cost > budget && start < items.length) break;
    used += cost;
    start--;
  }
  return items.slice(start);
}
