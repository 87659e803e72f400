/**
 * Builds a function call's arguments from the tool's JSON Schema and the words of the request:
 * enum values and numbers mentioned, quoted text, a capitalized place after "in/for/at/to" for
 * location-like fields, the whole request for query-like fields. Required fields nobody mentioned
 * get an empty value of their type, so the arguments always validate structurally.
 */
export function demoToolArguments(parameters: Record<string, unknown>, text: string): Record<string, unknown> {
  const properties = (isRecord(parameters.properties) ? parameters.properties : {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(parameters.required) ? (parameters.required as unknown[]) : [];
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const value = guess(name, isRecord(schema) ? schema : {}, text);
    if (value !== undefined) args[name] = value;
    else if (required.includes(name)) args[name] = emptyValue(schema);
  }
  return args;
}

function guess(name: string, schema: Record<string, unknown>, text: string): unknown {
  const lower = text.toLowerCase();
  if (Array.isArray(schema.enum)) {
    return schema.enum.find((v) => typeof v === 'string' && new RegExp(`\\b${escape(v.toLowerCase())}\\b`).test(lower));
  }
  switch (schema.type) {
    case 'number':
    case 'integer': {
      const m = /-?\d+(?:\.\d+)?/.exec(text);
      if (!m) return undefined;
      return schema.type === 'integer' ? Math.trunc(Number(m[0])) : Number(m[0]);
    }
    case 'boolean':
      if (/\b(yes|true|on|enable|enabled)\b/.test(lower)) return true;
      if (/\b(no|false|off|disable|disabled)\b/.test(lower)) return false;
      return undefined;
    case 'string':
    case undefined:
      return guessString(name.toLowerCase(), text, lower);
    default:
      return undefined;
  }
}

function guessString(name: string, text: string, lower: string): string | undefined {
  const quoted = /["“']([^"”']{1,200})["”']/.exec(text);
  if (quoted) return quoted[1];
  if (/city|location|place|destination|country|town|region|address/.test(name)) {
    const place = /\b(?:in|for|at|to|near)\s+([A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*)*)/u.exec(text);
    if (place) return place[1];
    const loose = /\b(?:in|for|at|to|near)\s+([\p{L}'-]+)/u.exec(text);
    return loose ? loose[1] : undefined;
  }
  if (/date|day|when/.test(name)) {
    const when = /\b(today|tomorrow|yesterday|\d{4}-\d{2}-\d{2})\b/.exec(lower);
    return when ? when[1] : undefined;
  }
  if (/^(q|query|text|message|prompt|input|question|search|term|content)$/.test(name)) return text.trim();
  if (/unit/.test(name)) {
    if (/\b(celsius|°c|metric)\b/.test(lower)) return 'celsius';
    if (/\b(fahrenheit|°f|imperial)\b/.test(lower)) return 'fahrenheit';
  }
  return undefined;
}

function emptyValue(schema: unknown): unknown {
  const type = isRecord(schema) ? schema.type : undefined;
  switch (type) {
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return '';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
