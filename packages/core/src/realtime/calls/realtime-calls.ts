import type { Principal } from '../../auth/api-key.js';

/**
 * Realtime calls over WebRTC (`POST /v1/realtime/calls`): the client's SDP offer in, the answer
 * out; the session then runs on the call's data channel (`oai-events`) and audio tracks. The HTTP
 * side (authentication, body limits, the error shape) knows only this port; the WebRTC adapter
 * implements it.
 */
export interface RealtimeCallRequest {
  /** Who calls: the API key, or the key that minted the ephemeral key used. */
  principal: Principal;
  /** The session id announced by the ephemeral key (null for an API key): one live session per key. */
  secretSessionId: string | null;
  /** The complete SDP offer (no trickle ICE). */
  offerSdp: string;
  /** The `session` part of a multipart offer (the shape of session.update's `session`), or null. */
  session: unknown;
}

export interface RealtimeCallAnswer {
  /** `rtc_…`: the path segment of the answer's Location header and of the hang-up URL. */
  callId: string;
  answerSdp: string;
}

export interface RealtimeCalls {
  /**
   * Admits the call (caps, one session per ephemeral key), answers the offer and starts the
   * session. Throws InvalidSdpOfferError, RealtimeCapacityError, RealtimeSessionActiveError, or
   * ServiceUnavailableError when admission cannot be decided.
   */
  create(request: RealtimeCallRequest): Promise<RealtimeCallAnswer>;
  /**
   * Ends a call of the principal's API key; RealtimeCallNotFoundError for anyone else's or an unknown
   * one. With an ephemeral key's session id, only the call that key placed: a key handed to one
   * browser must not end the calls of the others its API key serves.
   */
  hangup(callId: string, principal: Principal, secretSessionId?: string | null): Promise<void>;
}
