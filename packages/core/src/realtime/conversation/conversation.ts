import { realtimeErrors } from '../protocol/realtime-error.js';
import type { ConversationItem } from './items.js';

/** Server-side facts about an item that are not part of its wire shape. */
export interface ItemEntry {
  item: ConversationItem;
  /** Condensed into a summary: hidden from the language model, still retrievable. */
  condensed: boolean;
  /** The summary item this one was condensed into (if any). */
  summaryOf?: string[];
  /** Spoken assistant audio: total length and where each transcript sentence ends. */
  audio?: { durationMs: number; marks: { endMs: number; textLength: number }[] };
  /** Resolves when a user audio item's transcript is known (the model waits for it). */
  transcriptReady?: Promise<void>;
  /**
   * The user audio could not be transcribed (the recognizer failed, or was too far behind): the
   * client got an `error` saying so, and no response answers this turn (nobody heard the words).
   */
  transcriptionFailed?: boolean;
}

/** How much one session's conversation may hold. */
export interface ConversationLimits {
  maxItems: number;
  /** Serialized size of the items (content, transcripts, inline audio) when they were added. */
  maxBytes: number;
}

export const DEFAULT_CONVERSATION_LIMITS: ConversationLimits = { maxItems: 1000, maxBytes: 32 * 1024 * 1024 };

/**
 * Ordered items with O(1) lookup by id; insertion after any item (`previous_item_id`). Capped in
 * items and bytes: an insertion past either cap is refused with `conversation_full`, so one
 * session cannot hold unbounded memory.
 */
export class Conversation {
  private readonly order: ItemEntry[] = [];
  private readonly byId = new Map<string, ItemEntry>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly limits: ConversationLimits = DEFAULT_CONVERSATION_LIMITS) {}

  /** Bytes the conversation's items took when they were added. */
  get byteSize(): number {
    return this.bytes;
  }

  get size(): number {
    return this.order.length;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): ItemEntry | undefined {
    return this.byId.get(id);
  }

  lastId(): string | null {
    return this.order.length === 0 ? null : this.order[this.order.length - 1]!.item.id;
  }

  entries(): readonly ItemEntry[] {
    return this.order;
  }

  /**
   * Inserts after `previousItemId` (null/undefined: at the end; 'root' when no item has that id:
   * at the start). Returns the id of the item now preceding the new one.
   */
  insert(
    item: ConversationItem,
    previousItemId?: string | null,
    extra: Partial<ItemEntry> = {},
  ): { previousItemId: string | null; entry: ItemEntry } {
    if (this.byId.has(item.id)) throw realtimeErrors.duplicateItemId(item.id);
    const size = JSON.stringify(item).length;
    if (this.order.length >= this.limits.maxItems) throw realtimeErrors.conversationFull(`at most ${this.limits.maxItems} items`);
    if (this.bytes + size > this.limits.maxBytes) throw realtimeErrors.conversationFull(`at most ${this.limits.maxBytes} bytes of items`);
    const entry: ItemEntry = { item, condensed: false, ...extra };
    let index: number;
    if (previousItemId === undefined || previousItemId === null) {
      index = this.order.length;
    } else if (this.byId.has(previousItemId)) {
      index = this.order.indexOf(this.byId.get(previousItemId)!) + 1;
    } else if (previousItemId === 'root') {
      index = 0;
    } else {
      throw realtimeErrors.invalidPreviousItemId(previousItemId);
    }
    this.order.splice(index, 0, entry);
    this.byId.set(item.id, entry);
    this.sizes.set(item.id, size);
    this.bytes += size;
    return { previousItemId: index === 0 ? null : this.order[index - 1]!.item.id, entry };
  }

  /** Checks an insertion point without inserting (so validation errors come before any effect). */
  assertInsertable(itemId: string | null, previousItemId?: string | null): void {
    if (itemId !== null && this.byId.has(itemId)) throw realtimeErrors.duplicateItemId(itemId);
    if (previousItemId !== undefined && previousItemId !== null && previousItemId !== 'root' && !this.byId.has(previousItemId)) {
      throw realtimeErrors.invalidPreviousItemId(previousItemId);
    }
  }

  delete(id: string): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    this.byId.delete(id);
    this.bytes -= this.sizes.get(id) ?? 0;
    this.sizes.delete(id);
    this.order.splice(this.order.indexOf(entry), 1);
    return true;
  }

  /** Items the language model sees: everything not condensed into a summary. */
  modelVisible(): ItemEntry[] {
    return this.order.filter((e) => !e.condensed);
  }
}
