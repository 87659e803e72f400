/**
 * SIP messages (RFC 3261 section 7): a request or a response, its headers and body. Parsing is
 * strict about size and shape and lenient about the rest, so a datagram of any bytes either
 * becomes a message or a SipParseError, never a crash; every limit is checked before the bytes
 * it covers are looked at.
 */
export interface SipRequest {
  kind: 'request';
  method: string;
  uri: string;
  headers: SipHeaders;
  body: string;
}

export interface SipResponse {
  kind: 'response';
  status: number;
  reason: string;
  headers: SipHeaders;
  body: string;
}

export type SipMessage = SipRequest | SipResponse;

export interface SipParseLimits {
  /** A whole message, start line to body. */
  maxMessageBytes: number;
  /** Header lines (a flood of them is a way to burn CPU). */
  maxHeaders: number;
}

export const DEFAULT_PARSE_LIMITS: SipParseLimits = { maxMessageBytes: 16 * 1024, maxHeaders: 64 };

export class SipParseError extends Error {}

/** The compact forms of RFC 3261 section 7.3.3 (and RFC 3515's `r`), to their long names. */
const COMPACT: Record<string, string> = {
  i: 'call-id',
  m: 'contact',
  e: 'content-encoding',
  l: 'content-length',
  c: 'content-type',
  f: 'from',
  s: 'subject',
  k: 'supported',
  t: 'to',
  v: 'via',
  r: 'refer-to',
};

/** Headers by lower-case name; a header may appear several times (Via, Record-Route). */
export class SipHeaders {
  private readonly entries: Array<[string, string]> = [];

  add(name: string, value: string): void {
    const lower = name.toLowerCase();
    this.entries.push([COMPACT[lower] ?? lower, value]);
  }

  get(name: string): string | undefined {
    const lower = name.toLowerCase();
    return this.entries.find(([n]) => n === lower)?.[1];
  }

  all(name: string): string[] {
    const lower = name.toLowerCase();
    return this.entries.filter(([n]) => n === lower).map(([, v]) => v);
  }

  /** Every header, in order, long lower-case names. */
  list(): ReadonlyArray<readonly [string, string]> {
    return this.entries;
  }
}

const TOKEN = /^[A-Za-z0-9.!%*_+`'~-]+$/;

export function parseSipMessage(data: Buffer, limits: SipParseLimits = DEFAULT_PARSE_LIMITS): SipMessage {
  if (data.length > limits.maxMessageBytes)
    throw new SipParseError(`message of ${data.length} bytes is over the limit of ${limits.maxMessageBytes}`);
  const text = data.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) throw new SipParseError('no empty line ends the headers');
  const head = text.slice(0, split);
  const body = text.slice(split + 4);
  const lines = head.split('\r\n');
  const start = lines.shift()!;
  const headers = new SipHeaders();
  let count = 0;
  for (const line of lines) {
    if (/^[ \t]/.test(line)) {
      // a folded line continues the previous header (RFC 3261 section 7.3.1)
      const last = headers.list().at(-1);
      if (!last) throw new SipParseError('a continuation line before any header');
      (last as [string, string])[1] += ' ' + line.trim();
      continue;
    }
    if (++count > limits.maxHeaders) throw new SipParseError(`more than ${limits.maxHeaders} header lines`);
    const colon = line.indexOf(':');
    if (colon <= 0) throw new SipParseError('a header line without a name and a colon');
    const name = line.slice(0, colon).trim();
    if (!TOKEN.test(name)) throw new SipParseError('a header name that is not a token');
    headers.add(name, line.slice(colon + 1).trim());
  }
  const declared = headers.get('content-length');
  let content = body;
  if (declared !== undefined) {
    if (!/^\d{1,6}$/.test(declared)) throw new SipParseError('Content-Length is not a number');
    const length = Number(declared);
    const bodyBytes = Buffer.byteLength(body, 'utf8');
    if (length > bodyBytes) throw new SipParseError(`Content-Length ${length} is over the ${bodyBytes} bytes that came`);
    content = Buffer.from(body, 'utf8').subarray(0, length).toString('utf8');
  }
  for (const required of ['via', 'call-id', 'cseq', 'from', 'to']) {
    if (headers.get(required) === undefined) throw new SipParseError(`no ${required} header`);
  }
  if (!/^\d{1,10} [A-Za-z]+$/.test(headers.get('cseq')!)) throw new SipParseError('CSeq is not "number METHOD"');
  const response = /^SIP\/2\.0 ([1-6]\d\d) ?(.*)$/.exec(start);
  if (response) return { kind: 'response', status: Number(response[1]), reason: response[2] ?? '', headers, body: content };
  const request = /^([A-Za-z]+) (\S+) SIP\/2\.0$/.exec(start);
  if (!request) throw new SipParseError('the start line is neither a request nor a response line');
  return { kind: 'request', method: request[1]!.toUpperCase(), uri: request[2]!, headers, body: content };
}

/** The CSeq's number and method. */
export function cseqOf(message: SipMessage): { seq: number; method: string } {
  const [seq, method] = message.headers.get('cseq')!.split(' ');
  return { seq: Number(seq), method: method!.toUpperCase() };
}

/** A header's `;name=value` parameter (the From/To tag, the Via branch), or undefined. */
export function headerParam(value: string | undefined, name: string): string | undefined {
  if (!value) return undefined;
  const m = new RegExp(`;\\s*${name}=([^;,\\s>]+)`, 'i').exec(value.replace(/<[^>]*>/g, ''));
  return m?.[1];
}

/**
 * Whether a CANCEL is for this INVITE's transaction (RFC 3261 9.2, matched as 17.2.3 says): the
 * same Call-ID, From tag and CSeq number, and the same top Via branch when both carry RFC 3261's
 * (`z9hG4bK`); an RFC 2543 phone's branch is not unique, so without it the rest must do.
 */
export function cancelsInvite(cancel: SipRequest, invite: SipRequest): boolean {
  const branch = (r: SipRequest) => headerParam(r.headers.get('via'), 'branch');
  const fromTag = (r: SipRequest) => headerParam(r.headers.get('from'), 'tag');
  if (cancel.headers.get('call-id') !== invite.headers.get('call-id')) return false;
  if (cseqOf(cancel).seq !== cseqOf(invite).seq || fromTag(cancel) !== fromTag(invite)) return false;
  const ours = branch(invite);
  const theirs = branch(cancel);
  return !(ours?.startsWith('z9hG4bK') && theirs?.startsWith('z9hG4bK')) || ours === theirs;
}

/** Serializes a message: the start line, headers in order, a Content-Length that is always right. */
export function serializeSip(startLine: string, headers: Array<[string, string]>, body = ''): Buffer {
  const lines = [startLine, ...headers.filter(([n]) => n.toLowerCase() !== 'content-length').map(([n, v]) => `${n}: ${v}`)];
  lines.push(`Content-Length: ${Buffer.byteLength(body, 'utf8')}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'utf8');
}
