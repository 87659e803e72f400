import { randomBytes } from 'node:crypto';
import { cancelsInvite, cseqOf, headerParam, serializeSip, type SipRequest } from './sip-message.js';
import type { Peer } from './sip-transport.js';

export const SERVER_NAME = 'svc-realtime';
/** Final responses remembered to answer retransmitted requests (bounded: a flood cannot grow it). */
const MAX_REMEMBERED = 1024;
const REMEMBER_MS = 32_000;

/**
 * Answers requests (RFC 3261 section 8.2.6: Via, From, Call-ID and CSeq copied, To tagged) and
 * remembers final refusals, so a retransmitted INVITE gets the same answer without new work.
 */
export class SipResponder {
  private readonly remembered = new Map<string, { response: Buffer; at: number; request: SipRequest; tag: string }>();

  constructor(private readonly send: (message: Buffer, peer: Peer) => void) {}

  reply(
    request: SipRequest,
    peer: Peer,
    status: number,
    phrase: string,
    extra: Array<[string, string]> = [],
    tagTo = true,
    tag?: string,
    body = '',
  ): Buffer {
    const to = request.headers.get('to')!;
    const headers: Array<[string, string]> = [
      ...request.headers.all('via').map((v, i): [string, string] => ['Via', i === 0 ? withReceived(v, peer) : v]),
      ['From', request.headers.get('from')!],
      ['To', tagTo && !headerParam(to, 'tag') ? withTag(to, tag ?? randomBytes(8).toString('hex')) : to],
      ['Call-ID', request.headers.get('call-id')!],
      ['CSeq', request.headers.get('cseq')!],
      // the proxies that asked to stay in the dialog learn it was set up through them (RFC 3261 12.1.1)
      ...(request.method === 'INVITE' && status > 100 && status < 300
        ? request.headers.all('record-route').map((route): [string, string] => ['Record-Route', route])
        : []),
      ['Server', SERVER_NAME],
      ...extra,
    ];
    const message = serializeSip(`SIP/2.0 ${status} ${phrase}`, headers, body);
    this.send(message, peer);
    return message;
  }

  /** A final refusal, with the reason in a Warning header, remembered for the retransmitted INVITE. */
  refuse(
    invite: SipRequest,
    peer: Peer,
    status: number,
    phrase: string,
    reason: string,
    extra: Array<[string, string]> = [],
    tag?: string,
  ): void {
    const toTag = headerParam(invite.headers.get('to'), 'tag') ?? tag ?? randomBytes(8).toString('hex');
    const response = this.reply(
      invite,
      peer,
      status,
      phrase,
      [...extra, ['Warning', `399 ${SERVER_NAME} "${reason.replace(/"/g, "'")}"`]],
      true,
      toTag,
    );
    this.remember(transactionKey(invite), { response, at: performance.now(), request: invite, tag: toTag });
  }

  /** The remembered final answer to this request's transaction, if any. */
  rememberedFor(request: SipRequest): Buffer | undefined {
    return this.remembered.get(transactionKey(request))?.response;
  }

  /**
   * The To tag of the final refusal the INVITE this CANCEL is for got (remembered for its
   * retransmissions), or undefined when no such INVITE was refused here lately.
   */
  refusedInviteOf(cancel: SipRequest): string | undefined {
    const entry = this.remembered.get(`${cancel.headers.get('call-id')}|${cseqOf(cancel).seq} INVITE`);
    return entry && cancelsInvite(cancel, entry.request) ? entry.tag : undefined;
  }

  private remember(key: string, entry: { response: Buffer; at: number; request: SipRequest; tag: string }): void {
    const now = performance.now();
    for (const [k, v] of this.remembered) {
      if (now - v.at < REMEMBER_MS && this.remembered.size < MAX_REMEMBERED) break;
      this.remembered.delete(k);
    }
    this.remembered.set(key, entry);
  }
}

/** An INVITE transaction: Call-ID and CSeq (the branch alone is not required of RFC 2543 phones). */
function transactionKey(request: SipRequest): string {
  return `${request.headers.get('call-id')}|${request.headers.get('cseq')}`;
}

export function withTag(header: string, tag: string): string {
  return `${header};tag=${tag}`;
}

/** The top Via with `received` and `rport` filled in (RFC 3261 18.2.1, RFC 3581): the response goes where the request came from. */
function withReceived(via: string, peer: Peer): string {
  return via.replace(/;rport(?=;|$)/, `;rport=${peer.port}`) + `;received=${peer.address}`;
}

/** The phrases of the statuses an application most likely rejects with (any 3xx-6xx is sent; others say "Declined"). */
const REASON_PHRASES: Record<number, string> = {
  403: 'Forbidden',
  404: 'Not Found',
  480: 'Temporarily Unavailable',
  486: 'Busy Here',
  487: 'Request Terminated',
  488: 'Not Acceptable Here',
  500: 'Server Internal Error',
  503: 'Service Unavailable',
  600: 'Busy Everywhere',
  603: 'Decline',
  604: 'Does Not Exist Anywhere',
  607: 'Unwanted',
};

/** The reason phrase of a final status an application chose (any 3xx-6xx is sent; an unlisted one says "Declined"). */
export function statusPhrase(status: number): string {
  return REASON_PHRASES[status] ?? 'Declined';
}
