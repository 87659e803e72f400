import {
  CountsByKey,
  RealtimeCallNotFoundError,
  RealtimeCallNotRingingError,
  RealtimeCapacityError,
  type CallJoiner,
  type JoinedCall,
  type PhoneCallControl,
  type Principal,
} from '@svc/core';
import type { SipCall } from './sip-call.js';

/** What the SIP server registers of each call: its owner and what the API may do to it. */
export interface PhoneCallHandle {
  ownerKeyId: string;
  ringing(): boolean;
  /** The call's media and session, once accepted. */
  call(): SipCall | null;
  accept(session: Record<string, unknown>): Promise<void>;
  reject(statusCode: number): void;
  refer(targetUri: string): Promise<void>;
  hangup(): void;
}

/** WebSockets joined to one call at once (each hears every event of the session). */
const MAX_JOINERS_PER_CALL = 4;

/**
 * The phone calls by id, for the API (accept, reject, refer, hangup) and the WebSocket's
 * `?call_id=` join: the core's PhoneCallControl. A key finds only its own calls: any other id is
 * RealtimeCallNotFoundError, told exactly as an unknown one. It exists whether or not a SIP port is
 * open (the routes and the gateway are wired before the port), and is empty until calls come.
 */
export class PhoneCallDirectory implements PhoneCallControl {
  private readonly calls = new Map<string, PhoneCallHandle>();
  private readonly joiners = new CountsByKey();

  /** Checks a session configuration as session.update would (throws the spec's error). */
  constructor(private readonly checkSession: (session: Record<string, unknown>) => void = () => undefined) {}

  /** Adds a call; the returned function removes it (the call ended). */
  register(callId: string, handle: PhoneCallHandle): () => void {
    this.calls.set(callId, handle);
    return () => {
      if (this.calls.get(callId) === handle) this.calls.delete(callId);
    };
  }

  has(callId: string): boolean {
    return this.calls.has(callId);
  }

  async accept(callId: string, principal: Principal, session: Record<string, unknown>): Promise<void> {
    const handle = this.find(callId, principal);
    if (!handle.ringing()) throw new RealtimeCallNotRingingError(callId);
    this.checkSession(session);
    await handle.accept(session);
  }

  async reject(callId: string, principal: Principal, statusCode: number): Promise<void> {
    this.find(callId, principal).reject(statusCode);
  }

  async refer(callId: string, principal: Principal, targetUri: string): Promise<void> {
    await this.find(callId, principal).refer(targetUri);
  }

  async hangup(callId: string, principal: Principal): Promise<void> {
    this.find(callId, principal).hangup();
  }

  join(callId: string, principal: Principal, joiner: CallJoiner): JoinedCall {
    const call = this.find(callId, principal).call();
    if (!call || call.isEnded) throw new RealtimeCallNotFoundError(callId);
    if (this.joiners.of(callId) >= MAX_JOINERS_PER_CALL)
      throw new RealtimeCapacityError(`At most ${MAX_JOINERS_PER_CALL} WebSockets may join one call.`);
    this.joiners.add(callId);
    let left = false;
    const stopEvents = call.onEvent((event) => joiner.send(event));
    const stopEnded = call.onEnded((_ending, reason) => {
      leave();
      joiner.callEnded(reason);
    });
    const leave = () => {
      if (left) return;
      left = true;
      stopEvents();
      stopEnded();
      this.joiners.remove(callId);
    };
    return {
      handle: (event) => (left ? Promise.resolve() : call.handle(event)),
      rejectFrame: (message) => (left ? undefined : call.rejectFrame(message)),
      transportClosed: leave,
    };
  }

  private find(callId: string, principal: Principal): PhoneCallHandle {
    const handle = this.calls.get(callId);
    if (!handle || handle.ownerKeyId !== principal.apiKeyId) throw new RealtimeCallNotFoundError(callId);
    return handle;
  }
}
