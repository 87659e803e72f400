import { expectArray, expectObject, expectString, isObject, oneOf, rejectUnknownKeys } from '../protocol/field-checks.js';
import { invalidRequest } from '../protocol/realtime-error.js';
import type { FunctionTool, ToolChoice } from './session-config.js';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TOOLS = 128;

/** `session.tools`: function tools only; MCP tools (and their approvals) are rejected. */
export function parseTools(raw: unknown): FunctionTool[] {
  const list = expectArray(raw, 'session.tools');
  if (list.length > MAX_TOOLS) throw invalidRequest('invalid_value', `At most ${MAX_TOOLS} tools are allowed.`, 'session.tools');
  const names = new Set<string>();
  return list.map((entry, i) => {
    const param = `session.tools[${i}]`;
    const tool = expectObject(entry, param);
    if (tool.type === 'mcp') {
      throw invalidRequest('unsupported_parameter', 'MCP tools are not supported; only function tools are.', `${param}.type`);
    }
    if (tool.type !== 'function') {
      throw invalidRequest('invalid_value', `'${param}.type' must be 'function'.`, `${param}.type`);
    }
    rejectUnknownKeys(tool, ['type', 'name', 'description', 'parameters'], param);
    const name = expectString(tool.name, `${param}.name`);
    if (!TOOL_NAME.test(name)) {
      throw invalidRequest('invalid_value', `'${param}.name' must be 1-64 letters, digits, '_' or '-'.`, `${param}.name`);
    }
    if (names.has(name)) throw invalidRequest('invalid_value', `Duplicate tool name '${name}'.`, `${param}.name`);
    names.add(name);
    const description = tool.description === undefined ? '' : expectString(tool.description, `${param}.description`);
    const parameters =
      tool.parameters === undefined ? { type: 'object', properties: {} } : expectObject(tool.parameters, `${param}.parameters`);
    return { type: 'function', name, description, parameters };
  });
}

/** `tool_choice`: `auto` (the spec's value), plus `none`, `required` and a named function. */
export function parseToolChoice(raw: unknown): ToolChoice {
  if (isObject(raw)) {
    if (raw.type !== 'function') {
      throw invalidRequest('invalid_value', "Only function tool choices are supported.", 'session.tool_choice.type');
    }
    rejectUnknownKeys(raw, ['type', 'name'], 'session.tool_choice');
    return { type: 'function', name: expectString(raw.name, 'session.tool_choice.name') };
  }
  return oneOf(raw, ['auto', 'none', 'required'] as const, 'session.tool_choice');
}
