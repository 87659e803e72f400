import { snapshotItem, type FunctionCallItem, type ItemStatus } from '../conversation/items.js';
import type { OutputContext } from './output-context.js';

/** One streamed function call of a response: item events and argument deltas. */
export class FunctionCallOutput {
  readonly item: FunctionCallItem;
  private finished = false;

  constructor(
    private readonly ctx: OutputContext,
    readonly outputIndex: number,
    callId: string,
    name: string,
  ) {
    this.item = {
      id: ctx.newId('item_'),
      object: 'realtime.item',
      type: 'function_call',
      status: 'in_progress',
      call_id: callId,
      name,
      arguments: '',
    };
    const { previousItemId } = ctx.conversation.insert(this.item);
    ctx.emit({ type: 'response.output_item.added', response_id: ctx.responseId, output_index: outputIndex, item: snapshotItem(this.item) });
    ctx.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(this.item) });
  }

  get isFinished(): boolean {
    return this.finished;
  }

  delta(text: string): void {
    if (this.finished || text === '') return;
    this.item.arguments += text;
    this.ctx.emit({
      type: 'response.function_call_arguments.delta',
      response_id: this.ctx.responseId,
      item_id: this.item.id,
      output_index: this.outputIndex,
      call_id: this.item.call_id,
      delta: text,
    });
  }

  finish(status: ItemStatus): void {
    if (this.finished) return;
    this.finished = true;
    this.ctx.emit({
      type: 'response.function_call_arguments.done',
      response_id: this.ctx.responseId,
      item_id: this.item.id,
      output_index: this.outputIndex,
      call_id: this.item.call_id,
      name: this.item.name,
      arguments: this.item.arguments,
    });
    this.item.status = status;
    this.ctx.emit({
      type: 'response.output_item.done',
      response_id: this.ctx.responseId,
      output_index: this.outputIndex,
      item: snapshotItem(this.item),
    });
  }
}
