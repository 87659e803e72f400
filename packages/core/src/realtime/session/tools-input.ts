import { expectArray, expectObject, expectString, isObject, oneOf, rejectUnknownKeys } from '../protocol/field-checks.js';
import { invalidRequest } from '../protocol/realtime-error.js';
import type { FunctionTool, ToolChoice } from './session-config.js';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TOOLS = 128;

/** `session.tools` (or `response.tools`): function tools only; MCP tools (and their approvals) are rejected. */
export function parseTools(raw: unknown, base = 'session.tools'): FunctionTool[] {
  const list = expectArray(raw, base);
  if (list.length > MAX_TOOLS) throw invalidRequest('invalid_value', `At most ${MAX_TOOLS} tools are allowed.`, base);
  const names = new Set<string>();
  return list.map((entry, i) => {
    const param = `${base}[${i}]`;
    const tool = expectObject(entry, param);
    if (tool.type === 'mcp') {
      throw invalidRequest('unsupported_parameter', 'MCP tools are not supported; only function tools are.', `${param}.type`);
    }
    if (tool.type !== 'function') {
      throw invalidRequest('invalid_value', `'${param}.type' must be 'function'.`, `${param}.type`);
    }
    // `strict` is accepted for compatibility; arguments are not constrained beyond the schema.
    rejectUnknownKeys(tool, ['type', 'name', 'description', 'parameters', 'strict'], param);
    const name = expectString(tool.name, `${param}.name`);
    if (!TOOL_NAME.test(name)) {
      throw invalidRequest('invalid_value', `'${param}.name' must be 1-64 letters, digits, '_' or '-'.`, `${param}.name`);
    }
    if (names.has(name)) throw invalidRequest('invalid_value', `Duplicate tool name '${name}'.`, `${param}.name`);
    names.add(name);
    const description = tool.description === undefined ? '' : expectString(tool.description, `${param}.description`);
    const parameters =
      tool.parameters === undefined ? { type: 'object', properties: {} } : parseParameterSchema(tool.parameters, `${param}.parameters`);
    return { type: 'function', name, description, parameters };
  });
}

/**
 * The JSON Schema of a tool's arguments: an object schema (what chat-completion servers accept),
 * so a malformed one is refused here instead of failing every later request upstream.
 */
function parseParameterSchema(raw: unknown, param: string): Record<string, unknown> {
  const schema = expectObject(raw, param);
  if (schema.type !== undefined && schema.type !== 'object') {
    throw invalidRequest('invalid_value', `'${param}.type' must be 'object'.`, `${param}.type`);
  }
  if (schema.properties !== undefined && !isObject(schema.properties)) {
    throw invalidRequest('invalid_value', `'${param}.properties' must be an object.`, `${param}.properties`);
  }
  if (schema.required !== undefined && (!Array.isArray(schema.required) || schema.required.some((r) => typeof r !== 'string'))) {
    throw invalidRequest('invalid_value', `'${param}.required' must be an array of strings.`, `${param}.required`);
  }
  return schema;
}

/** `tool_choice`: `auto` (the spec's value), plus `none`, `required` and a named function. */
export function parseToolChoice(raw: unknown, param = 'session.tool_choice'): ToolChoice {
  if (isObject(raw)) {
    if (raw.type !== 'function') {
      throw invalidRequest('invalid_value', 'Only function tool choices are supported.', `${param}.type`);
    }
    rejectUnknownKeys(raw, ['type', 'name'], param);
    return { type: 'function', name: expectString(raw.name, `${param}.name`) };
  }
  return oneOf(raw, ['auto', 'none', 'required'] as const, param);
}
