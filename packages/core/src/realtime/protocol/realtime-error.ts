import { ServiceError } from '../../shared/errors.js';

/**
 * An error the realtime protocol reports as an `error` server event.
 *
 * Placement of the identifiers (the spec leaves it open): identifiers the spec names as a "type"
 * (`voice_output_task_ongoing`, `invalid_previous_item_id`, `conversation_item_duplicate_id`,
 * `conversation_item_not_found`, `insufficient_quota`) sit in `error.type` AND `error.code`;
 * identifiers named as a "code" (`response_id_mismatch`, `response_not_active`) and every
 * validation failure sit in `error.code` under `error.type: "invalid_request_error"`, as in the
 * realtime API the protocol follows.
 */
export class RealtimeError extends ServiceError {
  readonly identifier: string;
  constructor(
    readonly errorType: string,
    readonly code: string | null,
    message: string,
    param: string | null = null,
  ) {
    super(message, param);
    this.identifier = code ?? errorType;
  }
}

export const INVALID_REQUEST = 'invalid_request_error';

export function invalidRequest(code: string, message: string, param: string | null = null): RealtimeError {
  return new RealtimeError(INVALID_REQUEST, code, message, param);
}

/** An error whose identifier the spec gives as the error `type`. */
function typed(identifier: string, message: string, param: string | null = null): RealtimeError {
  return new RealtimeError(identifier, identifier, message, param);
}

/** `system` (and `developer`) messages: rejected, and the session ends (see the engine). */
export const SYSTEM_ROLE_UNSUPPORTED = 'system_role_unsupported';
export const isSystemRoleRejection = (err: unknown): boolean => err instanceof RealtimeError && err.code === SYSTEM_ROLE_UNSUPPORTED;

export const realtimeErrors = {
  voiceOutputTaskOngoing: () =>
    typed('voice_output_task_ongoing', 'A response is being generated; wait for response.done or send response.cancel first.'),
  invalidPreviousItemId: (id: string) =>
    typed('invalid_previous_item_id', `Previous item with id '${id}' does not exist.`, 'previous_item_id'),
  conversationFull: (limit: string) =>
    invalidRequest(
      'conversation_full',
      `The conversation is full (${limit}); delete items (conversation.item.delete) to add more.`,
      'item',
    ),
  duplicateItemId: (id: string) =>
    typed('conversation_item_duplicate_id', `An item with id '${id}' already exists in the conversation.`, 'item.id'),
  itemNotFound: (id: string) => typed('conversation_item_not_found', `Conversation item with id '${id}' does not exist.`, 'item_id'),
  responseIdMismatch: (given: string, active: string) =>
    invalidRequest(
      'response_id_mismatch',
      `Response '${given}' is not the active response (the active response is '${active}').`,
      'response_id',
    ),
  responseNotActive: () => invalidRequest('response_not_active', 'There is no active response to cancel.', 'response_id'),
  insufficientQuota: (message: string) => typed('insufficient_quota', message),
  /**
   * The recognizer failed on a turn (engine failure): no reply follows, the item keeps an empty
   * transcript. `cause` is the engine's own short message.
   */
  transcriptionFailed: (itemId: string, cause: string) =>
    new RealtimeError(
      'server_error',
      'transcription_failed',
      `The audio of item '${itemId}' could not be transcribed (${cause}), so it gets no reply; the item is kept with an empty transcript. Say it again.`,
    ),
  /**
   * A turn dropped because its transcript was not ready in time: the server is overloaded
   * (recognizer backlog, every decoder busy). No reply follows; the client may say it again.
   */
  turnDroppedOverloaded: (itemId: string, deadlineMs: number) =>
    new RealtimeError(
      'server_error',
      'server_overloaded',
      `Item '${itemId}' gets no reply: the server is overloaded and its speech recognition did not finish within ${deadlineMs} ms of the end of speech. The item is kept with an empty transcript. Say it again.`,
    ),
  /** A committed audio turn with no speech recognizer on the server (documented in docs/realtime.md). */
  transcriptionUnavailable: (itemId: string) =>
    typed(
      'transcription_unavailable',
      `The audio of item '${itemId}' cannot be transcribed: this server has no speech recognizer (see /readyz). The item is kept with an empty transcript.`,
    ),
};

/** The `error` payload of an `error` server event for any thrown value. */
export function toRealtimeErrorBody(err: unknown, clientEventId: string | null): RealtimeErrorBody {
  if (err instanceof RealtimeError) {
    return { type: err.errorType, code: err.code, message: err.message, param: err.param, event_id: clientEventId };
  }
  if (err instanceof ServiceError) {
    // Errors shared with the REST side (bad parameters, quota, engine failures) keep their
    // identifier as the code; the category follows who is at fault.
    const type = err.identifier === 'insufficient_quota' ? 'insufficient_quota' : err.serverFault ? 'server_error' : INVALID_REQUEST;
    return { type, code: err.identifier, message: err.message, param: err.param, event_id: clientEventId };
  }
  return {
    type: 'server_error',
    code: 'internal_error',
    message: 'The server had an error while processing your request.',
    param: null,
    event_id: clientEventId,
  };
}

export interface RealtimeErrorBody {
  type: string;
  code: string | null;
  message: string;
  param: string | null;
  /** The `event_id` of the client event that caused the error, when there was one. */
  event_id: string | null;
}
