import { snapshotItem, type ItemStatus, type MessageItem } from '../conversation/items.js';
import type { OutputContext } from './output-context.js';

/** An assistant message streamed as text (`output_modalities: ["text"]`). */
export class TextMessageOutput {
  readonly item: MessageItem;
  private readonly part: { type: 'output_text'; text: string } = { type: 'output_text', text: '' };
  private finished = false;

  constructor(
    private readonly ctx: OutputContext,
    readonly outputIndex: number,
  ) {
    this.item = { id: ctx.newId('item_'), object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    const { previousItemId } = ctx.conversation.insert(this.item);
    ctx.emit({ type: 'response.output_item.added', response_id: ctx.responseId, output_index: outputIndex, item: snapshotItem(this.item) });
    ctx.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(this.item) });
    this.item.content.push(this.part);
    ctx.emit({ ...this.partEvent('response.content_part.added'), part: { type: 'text', text: '' } });
  }

  get isFinished(): boolean {
    return this.finished;
  }

  delta(text: string): void {
    if (this.finished || text === '') return;
    this.part.text += text;
    this.ctx.emit({ ...this.partEvent('response.output_text.delta'), delta: text });
  }

  async finish(status: ItemStatus): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.ctx.emit({ ...this.partEvent('response.output_text.done'), text: this.part.text });
    this.ctx.emit({ ...this.partEvent('response.content_part.done'), part: { type: 'text', text: this.part.text } });
    this.item.status = status;
    this.ctx.emit({
      type: 'response.output_item.done',
      response_id: this.ctx.responseId,
      output_index: this.outputIndex,
      item: snapshotItem(this.item),
    });
  }

  private partEvent(type: string) {
    return { type, response_id: this.ctx.responseId, item_id: this.item.id, output_index: this.outputIndex, content_index: 0 };
  }
}
