import { randomBytes } from 'node:crypto';
import type { AdmittedSession, Principal } from '@svc/core';
import type { SipCall } from './sip-call.js';
import { serializeSip, type SipRequest } from './sip-message.js';
import { SERVER_NAME, withTag } from './sip-responder.js';
import type { AudioOffer } from './sdp.js';
import type { Peer } from './sip-transport.js';

/** One INVITE's dialog, from the first INVITE to the end of the call. */
export interface Dialog {
  /** The call's id in the API (`rtc_…`): the webhook's `call_id`, the path of accept/reject/refer/hangup. */
  publicId: string;
  call: SipCall | null;
  admitted: AdmittedSession | null;
  /** The key the call acts as (looked up when it rings). */
  principal: Principal | null;
  /** Accepted or rejected already (an answer is being set up, or was refused). */
  decided: boolean;
  /** The caller, where every response and our requests go. */
  peer: Peer;
  invite: SipRequest;
  localTag: string;
  /** The last response to the INVITE (resent on a retransmitted INVITE). */
  lastResponse: Buffer | null;
  state: 'proceeding' | 'answered' | 'confirmed' | 'ended';
  timers: Array<ReturnType<typeof setTimeout>>;
  localCseq: number;
  answerSdp: string;
  sdpVersion: number;
  /** The answer's o= session id and the call's RTP port (a re-INVITE's answer keeps both). */
  sdpSessionId: number;
  mediaPort: number;
  offer: AudioOffer;
  /** Bound to every interface with no advertised address: the address the caller reached (SDP, Contact, Via). */
  localAddress?: string | null;
  /** Runs once when the dialog leaves the table (the directory forgets the call). */
  onFinished?: () => void;
}

export function newDialog(publicId: string, invite: SipRequest, peer: Peer, offer: AudioOffer): Dialog {
  return {
    publicId,
    call: null,
    admitted: null,
    principal: null,
    decided: false,
    peer,
    invite,
    localTag: randomBytes(8).toString('hex'),
    lastResponse: null,
    state: 'proceeding',
    timers: [],
    localCseq: 1,
    answerSdp: '',
    sdpVersion: 1,
    sdpSessionId: 0,
    mediaPort: 0,
    offer,
  };
}

/**
 * A request of ours inside the dialog (BYE, REFER), to the caller's Contact: From and To swapped
 * from the INVITE, our tag on From, the next CSeq of our side.
 */
export function inDialogRequest(
  dialog: Dialog,
  method: string,
  via: { address: string; port: number },
  extra: Array<[string, string]> = [],
): { message: Buffer; cseq: number } {
  const invite = dialog.invite;
  const target = /<([^>]+)>/.exec(invite.headers.get('contact') ?? '')?.[1] ?? invite.headers.get('contact') ?? invite.uri;
  const cseq = ++dialog.localCseq;
  const message = serializeSip(`${method} ${target.trim()} SIP/2.0`, [
    ['Via', `SIP/2.0/${dialog.peer.transport} ${hostPort(via.address, via.port)};branch=z9hG4bK${randomBytes(8).toString('hex')};rport`],
    ['Max-Forwards', '70'],
    ['From', withTag(invite.headers.get('to')!, dialog.localTag)],
    ['To', invite.headers.get('from')!],
    ['Call-ID', invite.headers.get('call-id')!],
    ['CSeq', `${cseq} ${method}`],
    // a proxy in the path (its Record-Route in the INVITE) stays in it: the route set, in order (RFC 3261 12.1.1)
    ...invite.headers.all('record-route').map((route): [string, string] => ['Route', route]),
    ['User-Agent', SERVER_NAME],
    ...extra,
  ]);
  return { message, cseq };
}

export function hostPort(address: string, port: number): string {
  return `${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/** The INVITE's headers as the `realtime.call.incoming` webhook lists them (`sip_headers`), long names as sent. */
export function sipHeadersOf(invite: SipRequest): Array<{ name: string; value: string }> {
  return invite.headers
    .list()
    .filter(([name]) => !CREDENTIALS.has(name))
    .map(([name, value]) => ({ name: HEADER_CASE[name] ?? name, value }));
}

/**
 * The caller's digest answers are not caller metadata: posted to a webhook, one is a replayable
 * INVITE for the nonce's five minutes and a hash to guess the SIP password from offline.
 */
const CREDENTIALS = new Set(['authorization', 'proxy-authorization']);

const HEADER_CASE: Record<string, string> = {
  via: 'Via',
  from: 'From',
  to: 'To',
  'call-id': 'Call-ID',
  cseq: 'CSeq',
  contact: 'Contact',
  'max-forwards': 'Max-Forwards',
  'content-type': 'Content-Type',
  'content-length': 'Content-Length',
  'user-agent': 'User-Agent',
  allow: 'Allow',
  supported: 'Supported',
  authorization: 'Authorization',
  subject: 'Subject',
};
