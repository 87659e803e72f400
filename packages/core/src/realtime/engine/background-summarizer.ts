import { ChildAbortController } from '../../shared/child-abort-controller.js';
import type { ItemEntry } from '../conversation/conversation.js';
import { snapshotItem, type MessageItem } from '../conversation/items.js';
import { estimateTokens, planSummarization, type ConversationSummarizer } from '../conversation/summarization.js';
import type { Logger } from '../../shared/logger.js';
import type { Conversation } from '../conversation/conversation.js';
import type { SessionEvents, SessionState } from './session-ports.js';

/** What background summarization uses. */
export interface BackgroundSummarizerDeps {
  conversation: Conversation;
  session: SessionState;
  events: SessionEvents;
  logger: Logger;
  /** The language model's context window, which the conversation is kept under. */
  contextWindowTokens: number;
}

/**
 * `truncation: auto`: when the conversation nears the model's context window, the oldest items
 * are condensed into a summary item in the background. The originals stay in the conversation
 * (retrievable) but are hidden from the model; `conversation.context.summarized` lists them.
 */
export class BackgroundSummarizer {
  /** The summary being written: a child of the session's signal, so the session's end stops it. */
  private running: ChildAbortController | null = null;

  constructor(
    private readonly deps: BackgroundSummarizerDeps,
    private readonly summarizer: ConversationSummarizer,
  ) {}

  check(): void {
    if (this.deps.session.closed || this.running || this.deps.session.config.truncation !== 'auto') return;
    const settled = settledPrefix(this.deps.conversation.modelVisible());
    const plan = planSummarization(
      settled.map((e) => e.item),
      estimateTokens(this.deps.session.config.instructions),
      this.deps.contextWindowTokens,
    );
    if (plan.length === 0) return;
    const controller = new ChildAbortController(this.deps.session.signal);
    this.running = controller;
    void this.run(
      plan.map((i) => i.id),
      controller.signal,
    )
      .catch((err) => this.deps.logger.error({ err: String(err) }, 'applying a conversation summary failed'))
      .finally(() => {
        if (this.running === controller) this.running = null;
      });
  }

  private async run(ids: string[], signal: AbortSignal): Promise<void> {
    const { conversation } = this.deps;
    let text: string;
    try {
      const items = ids.flatMap((id) => (conversation.get(id) ? [conversation.get(id)!.item] : []));
      text = await this.summarizer.summarize(items, signal);
    } catch (err) {
      if (!signal.aborted) this.deps.logger.warn({ err: String(err) }, 'conversation summarization failed');
      return;
    }
    if (signal.aborted || this.deps.session.closed) return;
    // Items deleted (or condensed) while the summary was written are left out.
    const condensed = ids.filter((id) => conversation.get(id) && !conversation.get(id)!.condensed);
    if (condensed.length === 0) return;
    const summary: MessageItem = {
      id: this.deps.events.newId('item_'),
      object: 'realtime.item',
      type: 'message',
      status: 'completed',
      role: 'system',
      content: [{ type: 'input_text', text }],
    };
    const { previousItemId } = conversation.insert(summary, condensed[condensed.length - 1]!, { summaryOf: condensed });
    for (const id of condensed) conversation.get(id)!.condensed = true;
    this.deps.events.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(summary) });
    this.deps.events.emit({ type: 'conversation.context.summarized', summary_item_id: summary.id, summarized_item_ids: condensed });
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
