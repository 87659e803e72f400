import { createSocket, type Socket } from 'node:dgram';
import {
  InMemorySessionRegistry,
  RealtimeAdmission,
  silentLogger,
  type Logger,
  type OpusCodec,
  type Principal,
  type RateLimiter,
} from '@svc/core';
import { parseSipMessage, SipServer, type SipCallSession, type SipMessage, type SipServerOptions } from '../../src/index.js';

/** A stand-in session (the engine is tested elsewhere; here only signalling and limits are). */
export class FakeSession implements SipCallSession {
  closed = false;
  samples = 0;
  /** The client events the session was given (the first: the session.update of the accept). */
  readonly events: unknown[] = [];
  async handle(event: unknown): Promise<void> {
    this.events.push(event);
  }
  async appendInputSamples(s: Int16Array): Promise<void> {
    this.samples += s.length;
  }
  transportClosed(): void {
    this.closed = true;
  }
}

/** A stand-in Opus codec (silence both ways): enough for signalling tests of Opus calls; libopus is tested in apps/server. */
export const silentOpus: OpusCodec = {
  decode: async () => ({ samples: new Int16Array(0), sampleRate: 48000 }),
  createDecoder: () => ({ decode: () => new Int16Array(960), release: () => undefined }),
  createEncoder: () => ({ encode: () => [new Uint8Array([0xf8, 0xff, 0xfe])], flush: () => [] }),
};

/** A counting per-source limiter: `burst` INVITEs per source, then refusals. */
export function burstLimiter(burst: number): RateLimiter {
  const taken = new Map<string, number>();
  return {
    take(bucket) {
      const n = (taken.get(bucket) ?? 0) + 1;
      taken.set(bucket, n);
      return { allowed: n <= burst, retryAfterSeconds: n <= burst ? 0 : 5 };
    },
  };
}

/** A bare UDP SIP client: sends text, collects what comes back. */
export class Phone {
  readonly socket: Socket = createSocket('udp4');

  /** `address`: where the phone binds and the server it calls is (loopback, or another interface of this host). */
  constructor(readonly address = '127.0.0.1') {}

  readonly received: SipMessage[] = [];
  private waiters: Array<() => void> = [];

  async open(): Promise<this> {
    this.socket.on('message', (data) => {
      this.received.push(parseSipMessage(data));
      for (const w of this.waiters.splice(0)) w();
    });
    await new Promise<void>((r) => this.socket.bind(0, this.address, () => r()));
    return this;
  }

  get port(): number {
    return this.socket.address().port;
  }

  send(text: string, port: number): void {
    this.socket.send(Buffer.from(text), port, this.address);
  }

  /** The first response with this status (and, when given, for this Call-ID), waiting for it. */
  async response(status: number, callId?: string, timeoutMs = 5000): Promise<SipMessage> {
    const find = () =>
      this.received.find((m) => m.kind === 'response' && m.status === status && (!callId || m.headers.get('call-id') === callId));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no ${status} within ${timeoutMs} ms; got ${this.received.map((m) => (m.kind === 'response' ? m.status : m.method)).join(', ')}`,
        );
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  /** The first request of this method the server sent (its BYE). */
  async request(method: string, timeoutMs = 5000): Promise<SipMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((m) => m.kind === 'request' && m.method === method);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${method} within ${timeoutMs} ms`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}

export const offer = (codecs = '0 8') =>
  ['v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=-', 'c=IN IP4 127.0.0.1', 't=0 0', `m=audio 40000 RTP/AVP ${codecs}`, ''].join('\r\n');

export function invite(phone: Phone, callId: string, body = offer(), extra: string[] = [], cseq = 1): string {
  return [
    'INVITE sip:svc@127.0.0.1 SIP/2.0',
    `Via: SIP/2.0/UDP 127.0.0.1:${phone.port};branch=z9hG4bK${callId}${cseq};rport`,
    'Max-Forwards: 70',
    `From: <sip:phone@127.0.0.1>;tag=ph${callId}`,
    'To: <sip:svc@127.0.0.1>',
    `Call-ID: ${callId}`,
    `CSeq: ${cseq} INVITE`,
    `Contact: <sip:phone@127.0.0.1:${phone.port}>`,
    'Content-Type: application/sdp',
    ...extra,
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
}

export function inDialog(method: string, phone: Phone, callId: string, toTag: string, cseq: number): string {
  return [
    `${method} sip:svc@127.0.0.1 SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${phone.port};branch=z9hG4bK${method}${callId}${cseq}`,
    `From: <sip:phone@127.0.0.1>;tag=ph${callId}`,
    `To: <sip:svc@127.0.0.1>;tag=${toTag}`,
    `Call-ID: ${callId}`,
    `CSeq: ${cseq} ${method}`,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

/** The CANCEL of `invite(phone, callId, ..., cseq)`: its Via branch, Call-ID, From and CSeq number (RFC 3261 9.1). */
export function cancel(phone: Phone, callId: string, cseq = 1): string {
  return [
    'CANCEL sip:svc@127.0.0.1 SIP/2.0',
    `Via: SIP/2.0/UDP 127.0.0.1:${phone.port};branch=z9hG4bK${callId}${cseq};rport`,
    'Max-Forwards: 70',
    `From: <sip:phone@127.0.0.1>;tag=ph${callId}`,
    'To: <sip:svc@127.0.0.1>',
    `Call-ID: ${callId}`,
    `CSeq: ${cseq} CANCEL`,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

export const toTagOf = (m: SipMessage) => /tag=([^;\s]+)/.exec(m.headers.get('to')!)![1]!;

export async function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A server on a free loopback port that only loopback may call, with short timers (the tests' `options` on top). */
export function loopbackOptions(options: Partial<SipServerOptions>, ackTimeoutMs: number): SipServerOptions {
  return { host: '127.0.0.1', port: 0, allowedSources: ['127.0.0.1'], ackTimeoutMs, mediaTimeoutMs: 60_000, audioLeadMs: 200, ...options };
}

/**
 * A SIP server on loopback with in-memory admission (`maxSessions` per server and per key) whose
 * calls get stand-in sessions, each pushed to `sessions`; the key is `principal`'s (key_phone).
 */
export async function standInSipServer(setup: {
  sessions: FakeSession[];
  options?: Partial<SipServerOptions>;
  limiter?: RateLimiter;
  maxSessions?: number;
  principal?: () => Promise<Principal>;
  /** An Opus codec: calls offering Opus are answered in it. */
  opus?: OpusCodec;
  logger?: Logger;
}): Promise<{ server: SipServer; registry: InMemorySessionRegistry }> {
  const { sessions, maxSessions = 4 } = setup;
  const registry = new InMemorySessionRegistry({ maxSessions, maxSessionsPerKey: maxSessions });
  const admission = new RealtimeAdmission({
    registry,
    clock: { now: () => Date.now(), setTimer: () => () => undefined },
    logger: silentLogger,
  });
  const server = await SipServer.listen(
    {
      admission,
      principal: setup.principal ?? (async () => ({ apiKeyId: 'key_phone' }) as Principal),
      createSession: () => {
        const s = new FakeSession();
        sessions.push(s);
        return s;
      },
      session: {},
      rateLimiter: setup.limiter ?? burstLimiter(1000),
      newCallId: () => `sip_${sessions.length}`,
      logger: setup.logger ?? silentLogger,
      ...(setup.opus ? { opus: setup.opus } : {}),
    },
    loopbackOptions(setup.options ?? {}, 1500),
  );
  return { server, registry };
}
