import type { StatusKind } from './dom.js';

/** A line for the panel's status: its text and how it is shown. */
export interface StatusLine {
  text: string;
  kind: StatusKind;
}

const CALL_ENDED = '(the call ended)';

/** An error message said to have ended the call (once, however often it is said). */
export function endedTheCall(message: string): string {
  return message.endsWith(CALL_ENDED) ? message : `${message} ${CALL_ENDED}`;
}

/**
 * The status when a WebRTC call ends: the session's last error stays on screen (said once to have
 * ended the call), otherwise the reason the call gives.
 */
export function callEndedStatus(lastError: string | null, reason: string): StatusLine {
  if (lastError) return { text: endedTheCall(lastError), kind: 'error' };
  return { text: `Disconnected (${reason}).`, kind: '' };
}

/** The status when the WebSocket closes: its close code and reason, an error unless the close was normal (1000). */
export function socketClosedStatus(code: number, reason: string): StatusLine {
  return { text: `Disconnected (${code}${reason ? ` ${reason}` : ''}).`, kind: code === 1000 ? '' : 'error' };
}
