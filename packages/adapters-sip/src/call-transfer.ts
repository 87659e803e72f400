import { InvalidRequestError, ServiceUnavailableError } from '@svc/core';
import type { SipRequest, SipResponse } from './sip-message.js';

/**
 * A transfer (RFC 3515, RFC 5589's transferor): the REFER's answer decides whether the API call
 * succeeds; the NOTIFYs that follow (`message/sipfrag` with the new call's status line) say when the
 * caller is through to the target, and this side then hangs up.
 */

/** The REFER's headers besides the dialog's: where the caller is sent, and by whom. */
export function referHeaders(target: string, contact: string): Array<[string, string]> {
  return [
    ['Contact', contact],
    ['Refer-To', `<${target}>`],
    ['Referred-By', contact],
  ];
}

/** The REFER's final answer as the API tells it: nothing when taken (2xx); else the error the application gets. */
export function referOutcome(response: SipResponse | null): void {
  if (!response) throw new ServiceUnavailableError('caller', 'The caller did not answer the transfer (REFER); the call goes on.');
  if (response.status >= 300)
    throw new InvalidRequestError(
      `The caller refused the transfer: SIP ${response.status} ${response.reason}; the call goes on.`,
      'target_uri',
    );
}

/** Whether a NOTIFY reports the transferred call connected (a 2xx in its sipfrag); a 1xx or a failure leaves the call as it is. */
export function transferConnected(notify: SipRequest): boolean {
  const status = Number(/^SIP\/2\.0 (\d{3})/.exec(notify.body.trim())?.[1] ?? 0);
  return status >= 200 && status < 300;
}
