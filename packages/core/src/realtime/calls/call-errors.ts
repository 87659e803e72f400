import { echoed, ServiceError } from '../../shared/errors.js';

/** The body of POST /v1/realtime/calls is not a usable SDP offer. */
export class InvalidSdpOfferError extends ServiceError {
  readonly identifier = 'invalid_offer';
  constructor(message: string) {
    super(message, 'sdp');
  }
}

/** No call with this id under the caller's API key (unknown, ended, or another key's). */
export class RealtimeCallNotFoundError extends ServiceError {
  readonly identifier = 'call_not_found';
  constructor(callId: string) {
    super(`No active realtime call '${echoed(callId)}' for this API key.`, 'call_id');
  }
}

/** The ephemeral key already has a live session (the WebSocket closes such a second one with 4009). */
export class RealtimeSessionActiveError extends ServiceError {
  readonly identifier = 'session_already_active';
  constructor() {
    super('A session is already active for this ephemeral key; mint another one, or end that session first.');
  }
}

/** SVC_REALTIME_MAX_SESSIONS or the per-key cap is reached (the WebSocket closes with 1013). */
export class RealtimeCapacityError extends ServiceError {
  readonly identifier = 'concurrency_limit_exceeded';
  readonly retryAfterSeconds = 5;
  constructor(message = 'Max concurrency of realtime sessions exceeded; retry later.') {
    super(message);
  }
}

/** Accept or reject of a phone call that is no longer ringing (already accepted, rejected, or ended). */
export class RealtimeCallNotRingingError extends ServiceError {
  readonly identifier = 'call_not_ringing';
  constructor(callId: string) {
    super(`The call '${echoed(callId)}' is not waiting for an answer: it was already accepted or rejected.`, 'call_id');
  }
}
