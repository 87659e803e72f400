import type { ChatMessage } from '../ports/language-model.js';
import { itemText, type ConversationItem } from './items.js';

/**
 * The conversation as chat messages. Chat-completion servers insist that every assistant tool call
 * is answered by a tool message and that tool messages answer a call, so: consecutive function
 * calls become one assistant message, a call without output gets a placeholder answer, and an
 * output without its call (deleted or summarized away) becomes plain user text.
 */
export function buildModelMessages(instructions: string, items: readonly ConversationItem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  // Many chat templates accept a single leading system message only, so instructions and
  // conversation summaries (which describe the oldest turns) are merged into one.
  const system = [instructions.trim(), ...items.filter(isSystemMessage).map(itemText)].filter(Boolean).join('\n\n');
  if (system) messages.push({ role: 'system', content: system });
  const outputsByCall = new Map<string, string>();
  for (const item of items) if (item.type === 'function_call_output') outputsByCall.set(item.call_id, item.output);
  const answered = new Set<string>();

  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.type === 'message') {
      if (item.role === 'system') continue;
      const text = messageText(item);
      if (item.role === 'user') messages.push({ role: 'user', content: text });
      else messages.push({ role: 'assistant', content: text });
      continue;
    }
    if (item.type === 'function_call') {
      const calls = [item];
      while (items[i + 1]?.type === 'function_call') calls.push(items[++i] as typeof item);
      messages.push({
        role: 'assistant',
        content: null,
        toolCalls: calls.map((c) => ({ id: c.call_id, name: c.name, arguments: c.arguments || '{}' })),
      });
      // Answers come right after the calls; later outputs are moved up to keep the pairing valid.
      for (const c of calls) {
        const output = outputsByCall.get(c.call_id);
        messages.push({ role: 'tool', toolCallId: c.call_id, content: output ?? '(no result was provided for this call)' });
        answered.add(c.call_id);
      }
      continue;
    }
    if (!answered.has(item.call_id)) {
      messages.push({ role: 'user', content: `[Result of tool call ${item.call_id}]: ${item.output}` });
    }
  }
  return messages;
}

function messageText(item: Extract<ConversationItem, { type: 'message' }>): string {
  const text = itemText(item);
  if (text) return text;
  const hasAudio = item.content.some((c) => c.type === 'input_audio' || c.type === 'output_audio');
  return hasAudio ? '[inaudible audio]' : '';
}

function isSystemMessage(item: ConversationItem): boolean {
  return item.type === 'message' && item.role === 'system';
}
