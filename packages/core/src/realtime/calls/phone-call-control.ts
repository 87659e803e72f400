import type { Principal } from '../../auth/api-key.js';
import type { RealtimeServerEvent } from '../protocol/server-events.js';

/** A live phone call's session as a joined WebSocket drives it (client events in; the session's events go to the joiner). */
export interface JoinedCall {
  /** One client event (session.update, response.create, ...), as the session's own transport would pass it. */
  handle(event: unknown): Promise<void>;
  /** A frame that could not be used at all (not JSON, binary). */
  rejectFrame(message: string): void | Promise<void>;
  /** The joiner left: it hears nothing more; the call goes on. */
  transportClosed(): void;
}

/** Who joined a call: it hears the session's events, and that the call ended. */
export interface CallJoiner {
  send(event: RealtimeServerEvent): void;
  callEnded(reason: string): void;
}

/**
 * The control plane of phone calls, in the shape of OpenAI's SIP interface: an incoming call is
 * announced (the `realtime.call.incoming` webhook) and the application answers it with
 * `POST /v1/realtime/calls/{call_id}/accept | reject | refer | hangup`, or joins its events over the
 * WebSocket with `?call_id=`. Every method acts only on calls of the principal's API key: anyone
 * else's, or an unknown id, is RealtimeCallNotFoundError.
 */
export interface PhoneCallControl {
  /** Whether the id is a phone call's (live or ringing), whoever owns it: the hang-up route asks which transport has it. */
  has(callId: string): boolean;
  /**
   * Answers a ringing call with this session configuration (session.update's `session`, checked like
   * it). Throws RealtimeCallNotRingingError when it was already answered, RealtimeCapacityError when
   * the caps refuse it (the caller then hears 503).
   */
  accept(callId: string, principal: Principal, session: Record<string, unknown>): Promise<void>;
  /** Refuses a ringing call with a SIP status (300-699; OpenAI's default is 603 Decline). */
  reject(callId: string, principal: Principal, statusCode: number): Promise<void>;
  /** Transfers an answered call: a SIP REFER to the caller's side naming `targetUri`. */
  refer(callId: string, principal: Principal, targetUri: string): Promise<void>;
  /** Ends the call: BYE when answered, a refusal while ringing. */
  hangup(callId: string, principal: Principal): Promise<void>;
  /** Attaches a WebSocket to an answered call: `joiner` hears its events until the call or the joiner ends. */
  join(callId: string, principal: Principal, joiner: CallJoiner): JoinedCall;
}
