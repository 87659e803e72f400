// The shapes of the GA realtime server events, as published in the OpenAPI schema of the API the
// protocol follows (the `RealtimeServerEvent` union; e.g. the openai-node types generated from it).
// Written here as a table of facts; every event a test client receives is checked against it.

type Kind = 'string' | 'number' | 'string?' | 'string|null?' | 'object' | 'item' | 'part' | 'response' | 'error' | 'usage';

const PART_FIELDS = { content_index: 'number', item_id: 'string', output_index: 'number', response_id: 'string' } as const;

/** Required fields (plain kinds) and optional ones (`?`) of each GA server event. */
const EVENTS: Record<string, Record<string, Kind>> = {
  error: { error: 'error' },
  'session.created': { session: 'object' },
  'session.updated': { session: 'object' },
  'conversation.item.added': { item: 'item', previous_item_id: 'string|null?' },
  'conversation.item.retrieved': { item: 'item' },
  'conversation.item.deleted': { item_id: 'string' },
  'conversation.item.truncated': { item_id: 'string', content_index: 'number', audio_end_ms: 'number' },
  'conversation.item.input_audio_transcription.completed': {
    item_id: 'string',
    content_index: 'number',
    transcript: 'string',
    usage: 'usage',
  },
  'input_audio_buffer.cleared': {},
  'input_audio_buffer.committed': { item_id: 'string', previous_item_id: 'string|null?' },
  'input_audio_buffer.speech_started': { item_id: 'string', audio_start_ms: 'number' },
  'input_audio_buffer.speech_stopped': { item_id: 'string', audio_end_ms: 'number' },
  'response.created': { response: 'response' },
  'response.done': { response: 'response' },
  'response.output_item.added': { response_id: 'string', output_index: 'number', item: 'item' },
  'response.output_item.done': { response_id: 'string', output_index: 'number', item: 'item' },
  'response.content_part.added': { ...PART_FIELDS, part: 'part' },
  'response.content_part.done': { ...PART_FIELDS, part: 'part' },
  'response.output_text.delta': { ...PART_FIELDS, delta: 'string' },
  'response.output_text.done': { ...PART_FIELDS, text: 'string' },
  'response.output_audio.delta': { ...PART_FIELDS, delta: 'string' },
  'response.output_audio.done': { ...PART_FIELDS },
  'response.output_audio_transcript.delta': { ...PART_FIELDS, delta: 'string' },
  'response.output_audio_transcript.done': { ...PART_FIELDS, transcript: 'string' },
  'response.function_call_arguments.delta': {
    response_id: 'string',
    item_id: 'string',
    output_index: 'number',
    call_id: 'string',
    delta: 'string',
  },
  'response.function_call_arguments.done': {
    response_id: 'string',
    item_id: 'string',
    output_index: 'number',
    call_id: 'string',
    name: 'string',
    arguments: 'string',
  },
};

/** The spec's extension events: not in the GA schema, checked for what the spec says they carry. */
const EXTENSIONS: Record<string, Record<string, Kind>> = {
  'response.output_audio_transcript.length': { ...PART_FIELDS, delta: 'string', length_ms: 'number' },
  'conversation.context.summarized': { summary_item_id: 'string' },
  'session.idle_timeout': { seconds_idle: 'number' },
  'session.max_duration_reached': { max_duration_sec: 'number' },
  'response.output_audio.paused': { response_id: 'string' },
  'response.output_audio.resumed': { response_id: 'string', paused_ms: 'number' },
};

const USER_CONTENT = ['input_text', 'input_audio', 'input_image'];
const ASSISTANT_CONTENT = ['output_text', 'output_audio'];
const ITEM_STATUS = ['completed', 'incomplete', 'in_progress'];

/** What is wrong with `event` against the GA schema ([] when it conforms). */
export function gaSchemaViolations(event: Record<string, unknown>): string[] {
  const type = String(event.type);
  const fields = EVENTS[type] ?? EXTENSIONS[type];
  if (!fields) return [`${type}: not a GA server event nor a documented extension`];
  const problems: string[] = [];
  if (typeof event.event_id !== 'string') problems.push(`${type}.event_id must be a string`);
  for (const [name, kind] of Object.entries(fields)) check(problems, `${type}.${name}`, event[name], kind);
  return problems;
}

function check(problems: string[], path: string, value: unknown, kind: Kind): void {
  const optional = kind.endsWith('?');
  if (value === undefined) {
    if (!optional) problems.push(`${path} is missing`);
    return;
  }
  switch (kind) {
    case 'string':
    case 'string?':
      if (typeof value !== 'string') problems.push(`${path} must be a string, got ${JSON.stringify(value)}`);
      return;
    case 'string|null?':
      if (value !== null && typeof value !== 'string') problems.push(`${path} must be a string or null`);
      return;
    case 'number':
      if (typeof value !== 'number') problems.push(`${path} must be a number`);
      return;
    case 'object':
      if (!isObject(value)) problems.push(`${path} must be an object`);
      return;
    case 'part':
      if (!isObject(value) || !['text', 'audio'].includes(value.type as string)) problems.push(`${path}.type must be text or audio`);
      else for (const f of ['text', 'transcript', 'audio']) if (value[f] !== undefined) check(problems, `${path}.${f}`, value[f], 'string');
      return;
    case 'usage':
      if (!isObject(value) || !((value.type === 'duration' && typeof value.seconds === 'number') || value.type === 'tokens'))
        problems.push(`${path} must be duration or tokens usage`);
      return;
    case 'error':
      if (!isObject(value)) return void problems.push(`${path} must be an object`);
      check(problems, `${path}.type`, value.type, 'string');
      check(problems, `${path}.message`, value.message, 'string');
      for (const f of ['code', 'param', 'event_id']) check(problems, `${path}.${f}`, value[f], 'string|null?');
      return;
    case 'response':
      checkResponse(problems, path, value);
      return;
    case 'item':
      checkItem(problems, path, value);
      return;
  }
}

function checkResponse(problems: string[], path: string, value: unknown): void {
  if (!isObject(value)) return void problems.push(`${path} must be an object`);
  check(problems, `${path}.id`, value.id, 'string');
  if (value.object !== 'realtime.response') problems.push(`${path}.object must be realtime.response`);
  if (!['completed', 'cancelled', 'failed', 'incomplete', 'in_progress'].includes(value.status as string))
    problems.push(`${path}.status is not a GA status`);
  if (value.output !== undefined) {
    if (!Array.isArray(value.output)) problems.push(`${path}.output must be an array`);
    else value.output.forEach((item, i) => checkItem(problems, `${path}.output[${i}]`, item));
  }
  // usage and status_details: objects in the GA schema; the interface says they are always null.
  for (const f of ['usage', 'status_details', 'metadata'])
    if (value[f] !== undefined && value[f] !== null && !isObject(value[f])) problems.push(`${path}.${f} must be an object or null`);
}

function checkItem(problems: string[], path: string, value: unknown): void {
  if (!isObject(value)) return void problems.push(`${path} must be an object`);
  check(problems, `${path}.id`, value.id, 'string?');
  if (value.object !== undefined && value.object !== 'realtime.item') problems.push(`${path}.object must be realtime.item`);
  if (value.status !== undefined && !ITEM_STATUS.includes(value.status as string)) problems.push(`${path}.status is not a GA item status`);
  if (value.type === 'function_call') {
    check(problems, `${path}.name`, value.name, 'string');
    check(problems, `${path}.arguments`, value.arguments, 'string');
    check(problems, `${path}.call_id`, value.call_id, 'string?');
    return;
  }
  if (value.type === 'function_call_output') {
    check(problems, `${path}.call_id`, value.call_id, 'string');
    check(problems, `${path}.output`, value.output, 'string');
    return;
  }
  if (value.type !== 'message') return void problems.push(`${path}.type is not a GA item type`);
  const allowed =
    value.role === 'user' ? USER_CONTENT : value.role === 'assistant' ? ASSISTANT_CONTENT : value.role === 'system' ? ['input_text'] : null;
  if (!allowed) return void problems.push(`${path}.role is not a GA role`);
  if (!Array.isArray(value.content)) return void problems.push(`${path}.content must be an array`);
  value.content.forEach((c: unknown, i: number) => {
    const at = `${path}.content[${i}]`;
    if (!isObject(c) || !allowed.includes(c.type as string))
      return void problems.push(`${at}.type is not allowed for a ${String(value.role)} message`);
    // Optional strings in the GA schema: a null fails it (a user audio part's transcript too).
    for (const f of ['text', 'transcript', 'audio']) check(problems, `${at}.${f}`, c[f], 'string?');
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
