import type { SipResponse } from './sip-message.js';
import { cseqOf } from './sip-message.js';

/** RFC 3261's T1: a request of ours over UDP is resent at T1, 2 T1, 4 T1 ... until a final answer. */
export const T1_MS = 500;
const TRIES = 4;

/**
 * Our own requests in a dialog (BYE, REFER): each resent until a final response comes (a few
 * times: UDP loses datagrams), its final response handed back, or null when none came.
 */
export class ClientTransactions {
  private readonly waiting = new Map<string, (response: SipResponse) => void>();

  /** Sends (and resends) the request; resolves with its final response, or null after the last try. */
  send(callId: string, cseq: number, method: string, transmit: () => void, onAir: () => boolean): Promise<SipResponse | null> {
    const key = `${callId}|${cseq}|${method}`;
    return new Promise((resolve) => {
      let tries = 0;
      let timer: ReturnType<typeof setTimeout> | null = null;
      this.waiting.set(key, (response) => {
        if (timer) clearTimeout(timer);
        this.waiting.delete(key);
        resolve(response);
      });
      const attempt = () => {
        if (!this.waiting.has(key)) return;
        if (tries++ >= TRIES || !onAir()) {
          this.waiting.delete(key);
          return resolve(null);
        }
        transmit();
        timer = setTimeout(attempt, T1_MS * 2 ** (tries - 1));
        timer.unref?.();
      };
      attempt();
    });
  }

  /** A response: the final one of a request we sent ends its retransmission. */
  onResponse(response: SipResponse): void {
    if (response.status < 200) return;
    const { seq, method } = cseqOf(response);
    this.waiting.get(`${response.headers.get('call-id')}|${seq}|${method}`)?.(response);
  }
}
