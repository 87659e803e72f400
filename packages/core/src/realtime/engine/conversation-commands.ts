import { parseClientItem, parseItemId } from '../conversation/item-input.js';
import { snapshotItem, type ConversationItem } from '../conversation/items.js';
import { expectInteger, expectString, requireField, type JsonObject } from '../protocol/field-checks.js';
import { invalidRequest, realtimeErrors } from '../protocol/realtime-error.js';
import type { Logger } from '../../shared/logger.js';
import type { Conversation } from '../conversation/conversation.js';
import type { SessionEvents, SessionState } from './session-ports.js';

/** What the conversation commands use. */
export interface ConversationCommandsDeps {
  conversation: Conversation;
  session: SessionState;
  events: SessionEvents;
  logger: Logger;
  /** A user item was added: restarts the idle timer. */
  userSpoke(): void;
  /** The conversation grew: background summarization may be due. */
  conversationChanged(): void;
  /** Cancels the response in flight (resolves after its `response.done`); false when there is none. */
  cancelResponse(): Promise<boolean>;
}

/** `conversation.item.create / retrieve / truncate / delete`. None of them triggers a response. */
export class ConversationCommands {
  constructor(private readonly deps: ConversationCommandsDeps) {}

  create(fields: JsonObject): void {
    const previous = fields.previous_item_id;
    if (previous !== undefined && previous !== null) expectString(previous, 'previous_item_id');
    const parsed = parseClientItem(requireField(fields, 'item', 'item'));
    if (parsed.kind === 'skipped') {
      // The spec skips message items with non-text content: nothing is added or announced.
      this.deps.logger.debug({ reason: parsed.reason }, 'conversation item skipped');
      return;
    }
    const { conversation } = this.deps;
    conversation.assertInsertable(parsed.item.id, previous as string | null | undefined);
    const item = { ...parsed.item, id: parsed.item.id ?? this.deps.events.newId('item_') } as ConversationItem;
    const { previousItemId } = conversation.insert(item, previous as string | null | undefined);
    this.deps.events.emit({ type: 'conversation.item.added', previous_item_id: previousItemId, item: snapshotItem(item) });
    if (item.type === 'message' && item.role === 'user') this.deps.userSpoke();
    this.deps.conversationChanged();
  }

  retrieve(fields: JsonObject): void {
    const entry = this.entry(fields);
    this.deps.events.emit({ type: 'conversation.item.retrieved', item: snapshotItem(entry.item) });
  }

  delete(fields: JsonObject): void {
    const entry = this.entry(fields);
    // The active response is still writing into it: deleting now would leave its remaining events
    // pointing at an item the conversation no longer has.
    if ('status' in entry.item && entry.item.status === 'in_progress') {
      throw invalidRequest('invalid_value', 'The item is still being generated; cancel the response first.', 'item_id');
    }
    this.deps.conversation.delete(entry.item.id);
    this.deps.events.emit({ type: 'conversation.item.deleted', item_id: entry.item.id });
  }

  /**
   * Cuts a spoken assistant item at the playback position: the audio length becomes
   * `audio_end_ms` and the transcript keeps the sentences heard by then. Text-only sessions have
   * no audio to cut: a no-op answered with `audio_end_ms: 0`. The item of the response in flight
   * is cut too: that response is cancelled first, as a client that stopped its playback means (the
   * agents SDK sends only this truncate at `speech_started` when `interrupt_response` is on).
   */
  async truncate(fields: JsonObject): Promise<void> {
    // The event's own fields first: a malformed event is reported as such, whatever the item.
    const id = this.itemId(fields);
    const contentIndex = expectInteger(requireField(fields, 'content_index', 'content_index'), 'content_index', 0);
    const audioEndMs = expectInteger(requireField(fields, 'audio_end_ms', 'audio_end_ms'), 'audio_end_ms', 0);
    const entry = this.find(id);
    const answer = (ms: number) =>
      this.deps.events.emit({ type: 'conversation.item.truncated', item_id: entry.item.id, content_index: contentIndex, audio_end_ms: ms });
    if (this.deps.session.config.output_modalities[0] === 'text') return answer(0);

    const item = entry.item;
    if (item.type !== 'message' || item.role !== 'assistant') {
      throw invalidRequest('invalid_value', 'Only assistant messages can be truncated.', 'item_id');
    }
    if (item.status === 'in_progress' && !(await this.deps.cancelResponse())) {
      throw invalidRequest('invalid_value', 'The item is still being generated; cancel the response first.', 'item_id');
    }
    const part = item.content[contentIndex];
    if (!part || part.type !== 'output_audio') {
      throw invalidRequest('invalid_value', `Content index ${contentIndex} is not an audio part of this item.`, 'content_index');
    }
    const audio = entry.audio ?? { durationMs: 0, marks: [] };
    if (audioEndMs > audio.durationMs) {
      throw invalidRequest(
        'invalid_value',
        `audio_end_ms (${audioEndMs}) is longer than the item's audio (${audio.durationMs} ms).`,
        'audio_end_ms',
      );
    }
    const heard = audio.marks.filter((m) => m.endMs <= audioEndMs);
    const keepChars = heard.length > 0 ? heard[heard.length - 1]!.textLength : 0;
    part.transcript = part.transcript.slice(0, keepChars).trim();
    entry.audio = { durationMs: audioEndMs, marks: heard };
    answer(audioEndMs);
  }

  private entry(fields: JsonObject) {
    return this.find(this.itemId(fields));
  }

  private itemId(fields: JsonObject): string {
    return parseItemId(requireField(fields, 'item_id', 'item_id'), 'item_id');
  }

  private find(id: string) {
    const entry = this.deps.conversation.get(id);
    if (!entry) throw realtimeErrors.itemNotFound(id);
    return entry;
  }
}
