import type { ItemEntry } from '../conversation/conversation.js';
import { snapshotItem, type MessageItem } from '../conversation/items.js';
import { estimateTokens, planSummarization, type ConversationSummarizer } from '../conversation/summarization.js';
import type { SessionRuntime } from './session-runtime.js';

/**
 * `truncation: auto`: when the conversation nears the model's context window, the oldest items
 * are condensed into a summary item in the background. The originals stay in the conversation
 * (retrievable) but are hidden from the model; `conversation.context.summarized` lists them.
 */
export class BackgroundSummarizer {
  private running: AbortController | null = null;

  constructor(
    private readonly rt: SessionRuntime,
    private readonly summarizer: ConversationSummarizer,
  ) {}

  check(): void {
    if (this.rt.closed || this.running || this.rt.config.truncation !== 'auto') return;
    const settled = settledPrefix(this.rt.conversation.modelVisible());
    const plan = planSummarization(
      settled.map((e) => e.item),
      estimateTokens(this.rt.config.instructions),
      this.rt.deps.languageModel.contextWindowTokens,
    );
    if (plan.length === 0) return;
    const controller = new AbortController();
    this.running = controller;
    void this.run(plan.map((i) => i.id), controller.signal)
      .catch((err) => this.rt.deps.logger.error({ err: String(err) }, 'applying a conversation summary failed'))
      .finally(() => {
        if (this.running === controller) this.running = null;
      });
  }

  abort(): void {
    this.running?.abort();
    this.running = null;
  }

  private async run(ids: string[], signal: AbortSignal): Promise<void> {
    const { conversation } = this.rt;
    let text: string;
    try {
      const items = ids.flatMap((id) => (conversation.get(id) ? [conversation.get(id)!.item] : []));
      text = await this.summarizer.summarize(items, signal);
    } catch (err) {
      if (!signal.aborted) this.rt.deps.logger.warn({ err: String(err) }, 'conversation summarization failed');
      return;
    }
    if (signal.aborted || this.rt.closed) return;
    // Items deleted (or condensed) while the summary was written are left out.
    const condensed = ids.filter((id) => conversation.get(id) && !conversation.get(id)!.condensed);
    if (condensed.length === 0) return;
    const summary: MessageItem = {
      id: this.rt.newId('item_'),
      object: 'realtime.item',
      type: 'message',
      status: 'completed',
      role: 'system',
      content: [{ type: 'input_text', text }],
    };
    const { previousItemId } = conversation.insert(summary, condensed[condensed.length - 1]!, { summaryOf: condensed });
    for (const id of condensed) conversation.get(id)!.condensed = true;
    this.rt.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(summary) });
    this.rt.emit({ type: 'conversation.context.summarized', summary_item_id: summary.id, summarized_item_ids: condensed });
    this.running = null;
    this.check();
  }
}

/** Items the summarizer may touch: the oldest ones, up to the first still being produced. */
function settledPrefix(entries: ItemEntry[]): ItemEntry[] {
  const out: ItemEntry[] = [];
  for (const e of entries) {
    if (e.item.status === 'in_progress' || e.transcriptReady) break;
    out.push(e);
  }
  return out;
}
