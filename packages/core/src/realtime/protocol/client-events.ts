import { expectString, isObject, rejectUnknownKeys, type JsonObject } from './field-checks.js';
import { invalidRequest } from './realtime-error.js';
import { echoed } from '../../shared/errors.js';

/** Fields each client event may carry besides `type` and `event_id`. */
export const CLIENT_EVENT_FIELDS = {
  'session.update': ['session'],
  'input_audio_buffer.append': ['audio'],
  'input_audio_buffer.commit': [],
  'input_audio_buffer.clear': [],
  'conversation.item.create': ['item', 'previous_item_id'],
  'conversation.item.retrieve': ['item_id'],
  'conversation.item.truncate': ['item_id', 'content_index', 'audio_end_ms'],
  'conversation.item.delete': ['item_id'],
  'response.create': ['response'],
  'response.cancel': ['response_id'],
  /** Media transports only (a WebRTC call): cuts off the reply audio the track is playing. */
  'output_audio_buffer.clear': [],
} as const;

export type ClientEventType = keyof typeof CLIENT_EVENT_FIELDS;
export const CLIENT_EVENT_TYPES = Object.keys(CLIENT_EVENT_FIELDS) as ClientEventType[];

export interface ClientEvent {
  type: ClientEventType;
  /** The client's id, or one the server generated when it was omitted. */
  event_id: string;
  fields: JsonObject;
}

/** The client's `event_id` when it sent a string one, else a generated id (spec: "generated when omitted"). */
export function clientEventIdOf(raw: unknown, generate: () => string): string {
  return isObject(raw) && typeof raw.event_id === 'string' ? raw.event_id : generate();
}

/**
 * Checks the envelope of a parsed JSON frame: an object with a known `type`, an optional string
 * `event_id`, and no fields the event does not define. Field values are checked by the handlers.
 */
export function parseClientEvent(raw: unknown, eventId: string): ClientEvent {
  if (!isObject(raw)) throw invalidRequest('invalid_event', 'Each client event must be a JSON object.');
  if (raw.event_id !== undefined && typeof raw.event_id !== 'string') {
    throw invalidRequest('invalid_type', "'event_id' must be a string.", 'event_id');
  }
  if (raw.type === undefined) {
    throw invalidRequest('missing_required_parameter', "Missing required parameter: 'type'.", 'type');
  }
  const type = expectString(raw.type, 'type');
  if (!Object.hasOwn(CLIENT_EVENT_FIELDS, type)) throw unknownEventType(type);
  const allowed = CLIENT_EVENT_FIELDS[type as ClientEventType] as readonly string[];
  const { type: _type, event_id: _eventId, ...fields } = raw;
  rejectUnknownKeys(fields, allowed, '');
  return { type: type as ClientEventType, event_id: eventId, fields };
}

/** The error for an event type this session does not take. */
export function unknownEventType(type: string) {
  return invalidRequest(
    'invalid_value',
    `Unknown event type '${echoed(type)}'; supported types are ${CLIENT_EVENT_TYPES.join(', ')} (output_audio_buffer.clear on WebRTC calls only).`,
    'type',
  );
}
