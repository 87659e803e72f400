import { encodeBase64 } from '../../shared/base64.js';

/**
 * Server events. Every event carries a string `event_id` (strict clients drop events without one).
 * Payloads follow the GA realtime API; extension events are marked.
 */
export interface RealtimeServerEvent {
  type: string;
  event_id: string;
  [field: string]: unknown;
}

/** A server event before the emitter stamps its `event_id`. */
export type ServerEventBody = { type: string } & Record<string, unknown>;

/**
 * A server event as the wire's JSON text. Audio stays binary up to here: the engine emits
 * `response.output_audio.delta` with `delta` as the bytes of the session's output format (pcm: the
 * samples' own memory), and the transport encodes them once with its `toBase64` (on Node, Buffer's
 * native encoder). Every RealtimeOutput writes events through this.
 */
export function serverEventJson(event: RealtimeServerEvent, toBase64: (bytes: Uint8Array) => string = encodeBase64): string {
  return JSON.stringify(event.delta instanceof Uint8Array ? { ...event, delta: toBase64(event.delta) } : event);
}

export const SERVER_EVENT_TYPES = [
  'session.created',
  'session.updated',
  'error',
  'input_audio_buffer.committed',
  'input_audio_buffer.cleared',
  'input_audio_buffer.speech_started',
  'input_audio_buffer.speech_stopped',
  'conversation.item.added',
  'conversation.item.retrieved',
  'conversation.item.truncated',
  'conversation.item.deleted',
  'conversation.item.input_audio_transcription.completed',
  'response.created',
  'response.output_item.added',
  'response.content_part.added',
  'response.output_text.delta',
  'response.output_text.done',
  'response.output_audio_transcript.delta',
  'response.output_audio_transcript.done',
  'response.output_audio.delta',
  'response.output_audio.done',
  'response.content_part.done',
  'response.output_item.done',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'response.done',
  // Media transports only (a WebRTC call): the reply track's buffer, as the modelled API sends them there.
  'output_audio_buffer.started',
  'output_audio_buffer.stopped',
  'output_audio_buffer.cleared',
  // Extension events of this service.
  'response.output_audio_transcript.length',
  'conversation.context.summarized',
  'session.idle_timeout',
  'session.max_duration_reached',
  // Extension events sent only when turn_detection.interruption_events is true (a barge-in being judged).
  'response.output_audio.paused',
  'response.output_audio.resumed',
] as const;

/**
 * Events of the GA API this service never sends (spec, "Never emitted"). `output_audio_buffer.*`
 * is never sent over the WebSocket; a WebRTC call, where the modelled API sends them, gets them
 * (MEDIA_TRANSPORT_EVENT_TYPES).
 */
export const NEVER_EMITTED_EVENT_PATTERNS: readonly RegExp[] = [
  /^conversation\.created$/,
  /^conversation\.item\.done$/,
  /^rate_limits\.updated$/,
  /^input_audio_buffer\.timeout_triggered$/,
  /^conversation\.item\.input_audio_transcription\.(delta|failed|segment)$/,
  /^output_audio_buffer\./,
  /dtmf/,
  /^mcp_/,
  /\.mcp_/,
];

/** Server events only a session whose audio travels as media (a WebRTC call) receives. */
export const MEDIA_TRANSPORT_EVENT_TYPES = [
  'output_audio_buffer.started',
  'output_audio_buffer.stopped',
  'output_audio_buffer.cleared',
] as const;

/**
 * Why the server ends a realtime session. The WebSocket close code of each is the transport's
 * business: packages/adapters-ws/src/close-codes.ts holds every close code in one table.
 */
export const SESSION_ENDINGS = {
  /** The first session.update was invalid (its error event went out first). */
  invalidConfiguration: 'invalid_configuration',
  /** A `system` message was sent (rejected, then the session ends). */
  systemMessage: 'system_message',
  /** Five minutes without user speech (after session.idle_timeout). */
  idleTimeout: 'idle_timeout',
  /** The session's wall-clock cap (after session.max_duration_reached). */
  maxDuration: 'max_duration',
  /** Not the protocol: too many events before the first session.update. */
  protocolViolation: 'protocol_violation',
  /** The budget refused a response (after an insufficient_quota error). */
  quotaRefused: 'quota_refused',
} as const;
export type SessionEnding = (typeof SESSION_ENDINGS)[keyof typeof SESSION_ENDINGS];
