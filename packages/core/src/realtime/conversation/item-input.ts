import { expectArray, expectObject, expectString, rejectUnknownKeys, requireField } from '../protocol/field-checks.js';
import { invalidRequest, SYSTEM_ROLE_UNSUPPORTED } from '../protocol/realtime-error.js';
import type { ContentPart, ItemDraft } from './items.js';

/** Longest client-supplied item id accepted (ids are echoed in every event about the item). */
export const MAX_ITEM_ID_LENGTH = 64;
const MAX_TEXT_LENGTH = 256 * 1024;

/** What became of an item a client sent: added, or skipped because it carries non-text content. */
export type ItemInputResult = { kind: 'item'; item: ItemDraft } | { kind: 'skipped'; reason: string };

const TEXT_TYPES_BY_ROLE = {
  user: ['input_text'],
  // The spec writes assistant text as `text`; the GA API calls it `output_text`. Both are accepted
  // and stored as `output_text` so clients validating GA shapes accept the server's copy.
  assistant: ['text', 'output_text'],
} as const;
const NON_TEXT_TYPES = ['input_audio', 'audio', 'output_audio', 'input_image', 'input_file', 'item_reference'];

/**
 * Validates a client conversation item (`conversation.item.create`, `response.create` input).
 * Throws RealtimeError for malformed items and the `system` role; returns `skipped` for message
 * items with non-text content (the spec skips them rather than failing).
 */
export function parseClientItem(raw: unknown, param = 'item', allowedRoles: readonly string[] = ['user', 'assistant']): ItemInputResult {
  const obj = expectObject(raw, param);
  const id = obj.id === undefined || obj.id === null ? null : parseItemId(obj.id, `${param}.id`);
  const type = obj.type ?? (obj.role !== undefined ? 'message' : undefined);
  switch (type) {
    case 'message':
      return parseMessage(obj, id, param, allowedRoles);
    case 'function_call': {
      rejectUnknownKeys(obj, ['id', 'type', 'object', 'status', 'call_id', 'name', 'arguments'], param);
      const callId = expectString(requireField(obj, 'call_id', `${param}.call_id`), `${param}.call_id`);
      const name = expectString(requireField(obj, 'name', `${param}.name`), `${param}.name`);
      const args = obj.arguments === undefined ? '' : expectString(obj.arguments, `${param}.arguments`);
      return {
        kind: 'item',
        item: { id, object: 'realtime.item', type: 'function_call', status: 'completed', call_id: callId, name, arguments: args },
      };
    }
    case 'function_call_output': {
      rejectUnknownKeys(obj, ['id', 'type', 'object', 'status', 'call_id', 'output'], param);
      const callId = expectString(requireField(obj, 'call_id', `${param}.call_id`), `${param}.call_id`);
      const output = expectString(requireField(obj, 'output', `${param}.output`), `${param}.output`);
      checkLength(output, `${param}.output`);
      return {
        kind: 'item',
        item: { id, object: 'realtime.item', type: 'function_call_output', status: 'completed', call_id: callId, output },
      };
    }
    case undefined:
      throw invalidRequest('missing_required_parameter', `Missing required parameter: '${param}.type'.`, `${param}.type`);
    default:
      throw invalidRequest(
        'invalid_value',
        `Unsupported item type ${JSON.stringify(type)}; use 'message', 'function_call' or 'function_call_output'.`,
        `${param}.type`,
      );
  }
}

export function parseItemId(raw: unknown, param: string): string {
  const id = expectString(raw, param);
  if (id.length === 0 || id.length > MAX_ITEM_ID_LENGTH) {
    throw invalidRequest('invalid_value', `'${param}' must be 1 to ${MAX_ITEM_ID_LENGTH} characters.`, param);
  }
  return id;
}

function parseMessage(obj: Record<string, unknown>, id: string | null, param: string, allowedRoles: readonly string[]): ItemInputResult {
  rejectUnknownKeys(obj, ['id', 'type', 'object', 'status', 'role', 'content'], param);
  const role = expectString(requireField(obj, 'role', `${param}.role`), `${param}.role`);
  if (role === 'system' || role === 'developer') {
    throw invalidRequest(
      SYSTEM_ROLE_UNSUPPORTED,
      `'${role}' messages are not supported; use session or response instructions.`,
      `${param}.role`,
    );
  }
  if (!allowedRoles.includes(role)) {
    throw invalidRequest('invalid_value', `'${param}.role' must be one of ${allowedRoles.join(', ')}.`, `${param}.role`);
  }
  const parts = expectArray(requireField(obj, 'content', `${param}.content`), `${param}.content`);
  const content: ContentPart[] = [];
  for (let i = 0; i < parts.length; i++) {
    const partParam = `${param}.content[${i}]`;
    const part = expectObject(parts[i], partParam);
    if (typeof part.type === 'string' && NON_TEXT_TYPES.includes(part.type)) {
      return { kind: 'skipped', reason: `content type '${part.type}' is not text` };
    }
    const allowed = TEXT_TYPES_BY_ROLE[role as 'user' | 'assistant'] as readonly string[];
    if (typeof part.type !== 'string' || !allowed.includes(part.type)) {
      throw invalidRequest(
        'invalid_value',
        `'${partParam}.type' must be ${allowed.map((t) => `'${t}'`).join(' or ')} for ${role} messages.`,
        `${partParam}.type`,
      );
    }
    rejectUnknownKeys(part, ['type', 'text'], partParam);
    const text = expectString(requireField(part, 'text', `${partParam}.text`), `${partParam}.text`);
    checkLength(text, `${partParam}.text`);
    content.push(role === 'user' ? { type: 'input_text', text } : { type: 'output_text', text });
  }
  return {
    kind: 'item',
    item: { id, object: 'realtime.item', type: 'message', status: 'completed', role: role as 'user' | 'assistant', content },
  };
}

function checkLength(text: string, param: string): void {
  if (text.length > MAX_TEXT_LENGTH) {
    throw invalidRequest('string_above_max_length', `'${param}' is longer than ${MAX_TEXT_LENGTH} characters.`, param);
  }
}
