/** Conversation items in the GA wire shape (`object: "realtime.item"`). */
export type ItemStatus = 'completed' | 'incomplete' | 'in_progress';

export type ContentPart =
  | { type: 'input_text'; text: string }
  /**
   * `transcript` is a string from the start: empty until the words are known. OpenAI's published schema
   * types it as an optional string (a null fails it), and the agents SDK requires the field to be present.
   */
  | { type: 'input_audio'; transcript: string }
  | { type: 'output_text'; text: string }
  | { type: 'output_audio'; transcript: string };

export interface MessageItem {
  id: string;
  object: 'realtime.item';
  type: 'message';
  status: ItemStatus;
  /** `system` only for summary items the server creates; clients cannot add system messages. */
  role: 'user' | 'assistant' | 'system';
  content: ContentPart[];
}

export interface FunctionCallItem {
  id: string;
  object: 'realtime.item';
  type: 'function_call';
  status: ItemStatus;
  call_id: string;
  name: string;
  arguments: string;
}

export interface FunctionCallOutputItem {
  id: string;
  object: 'realtime.item';
  type: 'function_call_output';
  status: ItemStatus;
  call_id: string;
  output: string;
}

export type ConversationItem = MessageItem | FunctionCallItem | FunctionCallOutputItem;

/** A copy safe to hand out in an event while the original keeps changing (streamed responses). */
export function snapshotItem<T extends ConversationItem>(item: T): T {
  if (item.type === 'message') return { ...item, content: item.content.map((c) => ({ ...c })) } as T;
  return { ...item };
}

/** The plain text of an item, as the language model and the summarizer see it. */
export function itemText(item: ConversationItem): string {
  switch (item.type) {
    case 'message':
      return item.content
        .map((c) => (c.type === 'input_text' || c.type === 'output_text' ? c.text : c.transcript))
        .join(' ')
        .trim();
    case 'function_call':
      return `${item.name}(${item.arguments})`;
    case 'function_call_output':
      return item.output;
  }
}

/** An item as a client sent it: its id may still be missing (the server then generates one). */
export type ItemDraft = {
  [K in ConversationItem['type']]: Omit<Extract<ConversationItem, { type: K }>, 'id'> & { id: string | null };
}[ConversationItem['type']];
