import { expectArray, expectBoundedString, expectNumber, expectObject, expectString, rejectUnknownKeys } from '../protocol/field-checks.js';
import { invalidRequest } from '../protocol/realtime-error.js';
import { parseClientItem } from '../conversation/item-input.js';
import type { ItemDraft } from '../conversation/items.js';
import { parseMaxOutputTokens, parseModalities } from '../session/session-update.js';
import { MAX_REALTIME_INSTRUCTIONS_CHARS, TEMPERATURE_RANGE, type FunctionTool, type ToolChoice } from '../session/session-config.js';
import { parseToolChoice, parseTools } from '../session/tools-input.js';

/** The `response` object of `response.create` after validation. */
export interface ResponseOverrides {
  instructions: string | null;
  /** User message items to append to the conversation before generating (ids may be null). */
  input: ItemDraft[];
  temperature: number | null;
  maxOutputTokens: number | 'inf' | null;
  metadata: Record<string, string> | null;
  /** Standard fields of the modelled API, honoured for this response only. */
  outputModalities: ['audio'] | ['text'] | null;
  tools: FunctionTool[] | null;
  toolChoice: ToolChoice | null;
}

const METADATA_LIMITS = { keys: 16, keyLength: 64, valueLength: 512 } as const;

export function parseResponseOverrides(raw: unknown): ResponseOverrides {
  const none: ResponseOverrides = {
    instructions: null,
    input: [],
    temperature: null,
    maxOutputTokens: null,
    metadata: null,
    outputModalities: null,
    tools: null,
    toolChoice: null,
  };
  if (raw === undefined || raw === null) return none;
  const r = expectObject(raw, 'response');
  // `conversation: "auto"` is what GA clients send by default; any other target is unsupported.
  // The spec's overrides, plus the modelled API's output_modalities / tools / tool_choice (clients such
  // as pipecat always send output_modalities). `audio` and `prompt` are refused as unsupported.
  rejectUnknownKeys(
    r,
    ['instructions', 'input', 'temperature', 'max_output_tokens', 'metadata', 'conversation', 'output_modalities', 'tools', 'tool_choice'],
    'response',
  );
  if (r.conversation !== undefined && r.conversation !== 'auto') {
    throw invalidRequest('unsupported_parameter', 'Only \'response.conversation: "auto"\' is supported.', 'response.conversation');
  }
  const out = { ...none };
  if (r.instructions !== undefined)
    out.instructions = expectBoundedString(r.instructions, 'response.instructions', MAX_REALTIME_INSTRUCTIONS_CHARS);
  if (r.temperature !== undefined) {
    out.temperature = expectNumber(r.temperature, 'response.temperature', TEMPERATURE_RANGE.min, TEMPERATURE_RANGE.max);
  }
  if (r.max_output_tokens !== undefined) out.maxOutputTokens = parseMaxOutputTokens(r.max_output_tokens, 'response.max_output_tokens');
  if (r.metadata !== undefined && r.metadata !== null) out.metadata = parseMetadata(r.metadata);
  if (r.output_modalities !== undefined) out.outputModalities = parseModalities(r.output_modalities, 'response.output_modalities');
  if (r.tools !== undefined) out.tools = parseTools(r.tools, 'response.tools');
  if (r.tool_choice !== undefined) out.toolChoice = parseToolChoice(r.tool_choice, 'response.tool_choice');
  if (r.input !== undefined) {
    const list = expectArray(r.input, 'response.input');
    for (let i = 0; i < list.length; i++) {
      const param = `response.input[${i}]`;
      const entry = expectObject(list[i], param);
      if (entry.type !== undefined && entry.type !== 'message') {
        throw invalidRequest('invalid_value', `'${param}.type' must be 'message'.`, `${param}.type`);
      }
      const parsed = parseClientItem(entry, param, ['user']);
      if (parsed.kind === 'item') out.input.push(parsed.item);
    }
  }
  return out;
}

function parseMetadata(raw: unknown): Record<string, string> {
  const obj = expectObject(raw, 'response.metadata');
  const keys = Object.keys(obj);
  if (keys.length > METADATA_LIMITS.keys) {
    throw invalidRequest('invalid_value', `'response.metadata' may have at most ${METADATA_LIMITS.keys} keys.`, 'response.metadata');
  }
  const out: Record<string, string> = {};
  for (const key of keys) {
    const param = `response.metadata.${key}`;
    if (key.length > METADATA_LIMITS.keyLength)
      throw invalidRequest('invalid_value', `Metadata keys are limited to ${METADATA_LIMITS.keyLength} characters.`, param);
    const value = expectString(obj[key], param);
    if (value.length > METADATA_LIMITS.valueLength)
      throw invalidRequest('invalid_value', `Metadata values are limited to ${METADATA_LIMITS.valueLength} characters.`, param);
    out[key] = value;
  }
  return out;
}
