import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { InMemorySessionRegistry, Logger, Principal } from '@svc/core';
import { parseSipMessage, serializeRtp, SipServer, SipStreamFramer, type SipMessage, type SipServerOptions } from '../src/index.js';
import { recordingLogger, type LogEntry } from '@svc/adapters-testing';
import {
  burstLimiter,
  cancel,
  FakeSession,
  inDialog,
  invite,
  offer,
  Phone,
  silentOpus,
  standInSipServer,
  toTagOf,
  until,
} from './helpers/udp-phone.js';

const PRINCIPAL = { apiKeyId: 'key_phone' } as Principal;
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

describe('SipServer over UDP (real sockets, a stand-in session)', function () {
  this.timeout(20_000);
  let server: SipServer;
  let phone: Phone;
  let sessions: FakeSession[];
  let registry: InMemorySessionRegistry;

  /** Holds each call's key lookup until released (a slow key store), to CANCEL a call being answered. */
  let holdPrincipal: Promise<void> | null = null;

  async function start(
    options: Partial<SipServerOptions> = {},
    limiter = burstLimiter(1000),
    maxSessions = 4,
    opus?: typeof silentOpus,
  ): Promise<void> {
    sessions = [];
    ({ server, registry } = await standInSipServer({
      sessions,
      options,
      limiter,
      maxSessions,
      ...(opus ? { opus } : {}),
      principal: async () => {
        await holdPrincipal;
        return PRINCIPAL;
      },
    }));
    phone = await new Phone().open();
  }

  afterEach(async () => {
    phone?.close();
    await server?.close();
  });

  it('OPTIONS: 200 with what it allows', async () => {
    await start();
    phone.send(inDialog('OPTIONS', phone, 'o1', 'x', 1).replace(/;tag=x/, ''), server.address.port);
    const ok = await phone.response(200, 'o1');
    expect(ok.headers.get('allow')).to.include('INVITE');
  });

  it('INVITE -> 100, 180, 200 with an SDP answer; ACK confirms; BYE from the phone ends the call and frees the slot', async () => {
    await start();
    phone.send(invite(phone, 'c1'), server.address.port);
    await phone.response(100, 'c1');
    await phone.response(180, 'c1');
    const ok = await phone.response(200, 'c1');
    expect(ok.body).to.match(/^m=audio \d+ RTP\/AVP 0/m);
    expect(ok.body).to.include('a=rtpmap:0 PCMU/8000');
    expect(registry.localSessions()).to.equal(1);
    phone.send(inDialog('ACK', phone, 'c1', toTagOf(ok), 1), server.address.port);
    phone.send(inDialog('BYE', phone, 'c1', toTagOf(ok), 2), server.address.port);
    const byeOk = await phone.response(200, 'c1');
    expect(byeOk).to.exist;
    await until(() => registry.localSessions() === 0);
    expect(sessions[0]!.closed).to.equal(true);
    expect(server.activeCalls()).to.equal(0);
  });

  it('no common codec: 488, and no session is started', async () => {
    await start();
    phone.send(invite(phone, 'c2', offer('96 97')), server.address.port);
    const refused = await phone.response(488, 'c2');
    expect(refused.headers.get('warning')).to.include('no common codec');
    expect(sessions).to.have.length(0);
  });

  it('an offer whose audio port is out of range: 488 with the reason, a log line, no session; a re-offer of one leaves the call as it was', async () => {
    const lines: LogEntry[] = [];
    const logger = recordingLogger(lines);
    sessions = [];
    ({ server, registry } = await standInSipServer({ sessions, logger }));
    phone = await new Phone().open();
    const withPort = (port: string) => offer().replace('m=audio 40000', `m=audio ${port}`);
    for (const [callId, port] of [
      ['q1', '70000'],
      ['q2', '-5'],
      ['q3', 'x'],
    ] as const) {
      phone.send(invite(phone, callId, withPort(port)), server.address.port);
      const refused = await phone.response(488, callId);
      expect(refused.headers.get('warning')).to.include(`audio port ${port} is not a port number from 0 to 65535`);
      const line = lines.find((l) => l.obj.reason === `the offer's audio port ${port} is not a port number from 0 to 65535`);
      expect(line, `a log line for port ${port}`).to.exist;
      expect(line!.obj).to.include({ from: '127.0.0.1', status: 488 });
    }
    phone.send(invite(phone, 'q4', withPort('0')), server.address.port);
    expect((await phone.response(488, 'q4')).headers.get('warning')).to.include('disables its audio (port 0)');
    expect(sessions).to.have.length(0);
    expect(registry.localSessions()).to.equal(0);
    phone.send(invite(phone, 'q5'), server.address.port);
    const ok = await phone.response(200, 'q5');
    phone.send(inDialog('ACK', phone, 'q5', toTagOf(ok), 1), server.address.port);
    const reInvite = invite(phone, 'q5', withPort('65536'), [], 2).replace(
      'To: <sip:svc@127.0.0.1>',
      `To: <sip:svc@127.0.0.1>;tag=${toTagOf(ok)}`,
    );
    phone.send(reInvite, server.address.port);
    await until(() => phone.received.some((m) => m.kind === 'response' && m.headers.get('cseq') === '2 INVITE'));
    const answer = phone.received.find((m) => m.kind === 'response' && m.headers.get('cseq') === '2 INVITE')!;
    expect(answer).to.include({ status: 488 });
    expect(answer.headers.get('warning')).to.include('audio port 65536');
    expect(lines.some((l) => /re-INVITE refused/.test(l.msg ?? '') && /65536/.test(String(l.obj.reason)))).to.equal(true);
    expect(server.activeCalls()).to.equal(1);
  });

  it('a source outside the allowlist: 403 before anything is set up', async () => {
    await start({ allowedSources: ['10.9.8.7'] });
    phone.send(invite(phone, 'c3'), server.address.port);
    await phone.response(403, 'c3');
    expect(sessions).to.have.length(0);
    expect(registry.localSessions()).to.equal(0);
  });

  it('digest: no credentials 401 with a challenge; the right answer is admitted, a wrong one is not', async () => {
    await start({ credentials: { username: 'pbx', password: 'secret' } });
    phone.send(invite(phone, 'c4'), server.address.port);
    const challenge = (await phone.response(401, 'c4')).headers.get('www-authenticate')!;
    expect(sessions).to.have.length(0);
    const nonce = /nonce="([^"]+)"/.exec(challenge)![1]!;
    const answer = (password: string) => md5(`${md5(`pbx:svc:${password}`)}:${nonce}:00000001:abc:auth:${md5('INVITE:sip:svc@127.0.0.1')}`);
    const auth = (password: string) =>
      `Authorization: Digest username="pbx", realm="svc", nonce="${nonce}", uri="sip:svc@127.0.0.1", response="${answer(password)}", qop=auth, nc=00000001, cnonce="abc"`;
    phone.send(invite(phone, 'c5', offer(), [auth('wrong')], 2), server.address.port);
    await phone.response(401, 'c5');
    phone.send(invite(phone, 'c6', offer(), [auth('secret')], 2), server.address.port);
    await phone.response(200, 'c6');
    expect(sessions).to.have.length(1);
  });

  it("refused INVITEs leave a log line: a digest answer that fails (its user, never its response) and an offer's codecs", async () => {
    const lines: LogEntry[] = [];
    const logger = recordingLogger(lines);
    sessions = [];
    ({ server, registry } = await standInSipServer({
      sessions,
      options: { credentials: { username: 'pbx', password: 'secret' } },
      logger,
    }));
    phone = await new Phone().open();
    phone.send(invite(phone, 'l1'), server.address.port);
    const nonce = /nonce="([^"]+)"/.exec((await phone.response(401, 'l1')).headers.get('www-authenticate')!)![1]!;
    // the challenge of a call's first INVITE is routine: no line
    expect(lines).to.have.length(0);
    const wrong = `Authorization: Digest username="pbx", realm="svc", nonce="${nonce}", uri="sip:svc@127.0.0.1", response="${'0'.repeat(32)}"`;
    phone.send(invite(phone, 'l2', offer(), [wrong], 2), server.address.port);
    await phone.response(401, 'l2');
    expect(lines).to.have.length(1);
    expect(lines[0]!.obj).to.include({ from: '127.0.0.1', user: 'pbx' });
    expect(lines[0]!.msg).to.match(/digest/);
    expect(JSON.stringify(lines[0])).not.to.include('0'.repeat(32));
    const right = wrong.replace(
      `response="${'0'.repeat(32)}"`,
      `response="${md5(`${md5('pbx:svc:secret')}:${nonce}:${md5('INVITE:sip:svc@127.0.0.1')}`)}"`,
    );
    phone.send(invite(phone, 'l3', offer('9'), [right], 2), server.address.port);
    await phone.response(488, 'l3');
    expect(lines).to.have.length(2);
    expect(lines[1]!.obj).to.include({ from: '127.0.0.1', status: 488 });
    expect(lines[1]!.obj.reason).to.match(/no common codec/);
  });

  it('an INVITE requiring an extension the server lacks (Require: 100rel, timer): 420 naming them, nothing set up', async () => {
    await start();
    phone.send(invite(phone, 'r1', offer(), ['Require: 100rel', 'Require: timer, 100rel']), server.address.port);
    const refused = await phone.response(420, 'r1');
    expect(refused.headers.get('unsupported')).to.equal('100rel, timer');
    expect(sessions).to.have.length(0);
    expect(registry.localSessions()).to.equal(0);
    // only what is required counts: what a caller merely supports is no reason to refuse
    phone.send(invite(phone, 'r2', offer(), ['Supported: 100rel, timer, replaces']), server.address.port);
    await phone.response(200, 'r2');
  });

  it("a call's end is logged with its length and its RTP counts, and RTP from an untrusted address with a warning", async () => {
    const lines: LogEntry[] = [];
    const logger = recordingLogger(lines);
    sessions = [];
    ({ server, registry } = await standInSipServer({ sessions, logger }));
    phone = await new Phone().open();
    phone.send(invite(phone, 'e1'), server.address.port);
    const ok = await phone.response(200, 'e1');
    phone.send(inDialog('ACK', phone, 'e1', toTagOf(ok), 1), server.address.port);
    const rtpPort = Number(/^m=audio (\d+)/m.exec(ok.body)![1]);
    const rtp = (sequence: number) =>
      serializeRtp({ payloadType: 0, sequence, timestamp: sequence * 160, ssrc: 7, marker: false, payload: Buffer.alloc(160, 0xff) });
    const caller = createSocket('udp4');
    const stranger = createSocket('udp4');
    await new Promise<void>((r) => caller.bind(0, '127.0.0.1', () => r()));
    await new Promise<void>((r) => stranger.bind(0, '127.0.0.2', () => r()));
    try {
      for (let i = 1; i <= 5; i++) caller.send(rtp(i), rtpPort, '127.0.0.1');
      stranger.send(rtp(6), rtpPort, '127.0.0.1');
      stranger.send(rtp(7), rtpPort, '127.0.0.1');
      await until(() => sessions[0]!.samples >= 160 * 2);
      await new Promise((r) => setTimeout(r, 50));
      phone.send(inDialog('BYE', phone, 'e1', toTagOf(ok), 2), server.address.port);
      await until(() => lines.some((l) => l.msg === 'SIP call ended'));
    } finally {
      caller.close();
      stranger.close();
    }
    const ended = lines.find((l) => l.msg === 'SIP call ended')!.obj;
    expect(ended).to.include({ ending: 'hangup' });
    expect(ended.seconds).to.be.a('number');
    expect(ended.rtp).to.deep.include({ received: 5, undecodable: 0, fromStrangers: 2 });
    expect((ended.rtp as { sent: number }).sent).to.be.greaterThan(0);
    const warning = lines.find((l) => /RTP came from an address/.test(l.msg ?? ''))!;
    expect(warning.obj).to.include({ from: '127.0.0.2', packets: 2 });
  });

  it('bound to every interface with no advertised address: the SDP and Contact name the address the caller reached', async function () {
    // a PBX on another host: here, a phone on this host's own non-loopback address
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (!lan) return this.skip();
    sessions = [];
    ({ server, registry } = await standInSipServer({ sessions, options: { host: '0.0.0.0', allowedSources: [lan] } }));
    phone = await new Phone(lan).open();
    phone.send(invite(phone, 'a1'), server.address.port);
    const ok = await phone.response(200, 'a1');
    // loopback here told the PBX to send its RTP, ACK and BYE to itself: a silent call, ended for no ACK
    expect(ok.body).to.match(new RegExp(`^c=IN IP4 ${lan.replace(/\./g, '\\.')}$`, 'm'));
    expect(ok.headers.get('contact')).to.equal(`<sip:svc@${lan}:${server.address.port}>`);
  });

  it("a BYE with the call's Call-ID but not its tags gets 481 and the call goes on; the dialog's own BYE ends it", async () => {
    await start();
    phone.send(invite(phone, 'b1'), server.address.port);
    const ok = await phone.response(200, 'b1');
    phone.send(inDialog('ACK', phone, 'b1', toTagOf(ok), 1), server.address.port);
    phone.send(inDialog('BYE', phone, 'b1', 'not-ours', 2), server.address.port);
    await phone.response(481, 'b1');
    phone.send(inDialog('BYE', phone, 'b1', toTagOf(ok), 3).replace(';tag=phb1', ';tag=someone-else'), server.address.port);
    await until(() => phone.received.filter((m) => m.kind === 'response' && m.status === 481).length === 2);
    expect(server.activeCalls()).to.equal(1);
    phone.send(inDialog('BYE', phone, 'b1', toTagOf(ok), 4), server.address.port);
    await until(() => server.activeCalls() === 0);
  });

  it('at capacity: 503 with the reason and Retry-After, the calls already in keep their slots', async () => {
    await start({}, burstLimiter(1000), 1);
    phone.send(invite(phone, 'c7'), server.address.port);
    await phone.response(200, 'c7');
    phone.send(invite(phone, 'c8'), server.address.port);
    const refused = await phone.response(503, 'c8');
    expect(refused.headers.get('warning')).to.match(/capacity/);
    expect(refused.headers.get('retry-after')).to.equal('5');
    expect(registry.localSessions()).to.equal(1);
  });

  it('an INVITE flood from one source is bounded by its rate limit: the rest get 503 with Retry-After', async () => {
    await start({}, burstLimiter(3), 100);
    for (let i = 0; i < 40; i++) phone.send(invite(phone, `f${i}`), server.address.port);
    await until(() => phone.received.filter((m) => m.kind === 'response' && m.status >= 200).length >= 40);
    const finals = phone.received.filter((m) => m.kind === 'response' && m.status >= 200) as Array<SipMessage & { status: number }>;
    expect(finals.filter((m) => m.status === 200)).to.have.length(3);
    const limited = finals.filter((m) => m.status === 503);
    expect(limited).to.have.length(37);
    expect(limited[0]!.headers.get('retry-after')).to.equal('5');
    expect(sessions).to.have.length(3);
  });

  it('a call that never ACKs: the 200 is resent, then the call ends with BYE and its slot is freed', async () => {
    await start({ ackTimeoutMs: 1200 });
    phone.send(invite(phone, 'c9'), server.address.port);
    await phone.response(200, 'c9');
    expect(registry.localSessions()).to.equal(1);
    const bye = await phone.request('BYE', 5000);
    expect(bye.headers.get('call-id')).to.equal('c9');
    expect(phone.received.filter((m) => m.kind === 'response' && m.status === 200).length, '200 OK resent').to.be.at.least(2);
    await until(() => registry.localSessions() === 0);
    expect(sessions[0]!.closed).to.equal(true);
  });

  it('over TCP: the INVITE, its answers and the BYE travel on the connection; a framing error closes it', async () => {
    await start();
    const received: SipMessage[] = [];
    const socket = connect(server.address.port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const framer = new SipStreamFramer(65_536);
    socket.on('data', (chunk: Buffer) => received.push(...framer.push(chunk).map((m) => parseSipMessage(m))));
    const localPort = socket.localPort!;
    const text = invite({ port: localPort } as Phone, 't1').replace('SIP/2.0/UDP', 'SIP/2.0/TCP');
    socket.write(text.slice(0, 50));
    socket.write(text.slice(50));
    await until(() => received.some((m) => m.kind === 'response' && m.status === 200));
    expect(received.map((m) => (m.kind === 'response' ? m.status : 0))).to.include.members([100, 180, 200]);
    const ok = received.find((m) => m.kind === 'response' && m.status === 200)!;
    expect(ok.headers.get('contact')).to.include('transport=tcp');
    socket.write(inDialog('BYE', { port: localPort } as Phone, 't1', toTagOf(ok), 2));
    await until(() => received.filter((m) => m.kind === 'response' && m.status === 200).some((m) => m.headers.get('cseq') === '2 BYE'));
    await until(() => registry.localSessions() === 0);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write('INVITE sip:x SIP/2.0\r\nVia: a\r\n\r\n');
    await closed;
  });

  it('CANCEL while the call is being answered: 200 for the CANCEL, 487 for the INVITE, no session and no slot', async () => {
    await start();
    let release!: () => void;
    holdPrincipal = new Promise<void>((r) => (release = r));
    try {
      phone.send(invite(phone, 'k1'), server.address.port);
      await phone.response(100, 'k1');
      phone.send(cancel(phone, 'k1'), server.address.port);
      const terminated = await phone.response(487, 'k1');
      expect(terminated.headers.get('cseq')).to.equal('1 INVITE');
      expect(phone.received.some((m) => m.kind === 'response' && m.status === 200 && m.headers.get('cseq') === '1 CANCEL')).to.equal(true);
    } finally {
      release();
      holdPrincipal = null;
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(sessions).to.have.length(0);
    expect(registry.localSessions()).to.equal(0);
  });

  it('CANCEL after the INVITE got its final response: 200 for the CANCEL and nothing changes (RFC 3261 9.2); 481 only when no INVITE matches', async () => {
    await start();
    const responsesTo = (callId: string, cseq: string) =>
      phone.received.filter((m) => m.kind === 'response' && m.headers.get('call-id') === callId && m.headers.get('cseq') === cseq);
    phone.send(invite(phone, 'x1'), server.address.port);
    const ok = await phone.response(200, 'x1');
    // the CANCEL crossed the 200 (sent before the phone saw it): the call is answered and stays so
    phone.send(cancel(phone, 'x1'), server.address.port);
    await until(() => responsesTo('x1', '1 CANCEL').length > 0);
    expect(responsesTo('x1', '1 CANCEL').map((m) => m.kind === 'response' && m.status)).to.deep.equal([200]);
    expect(toTagOf(responsesTo('x1', '1 CANCEL')[0]!), "the CANCEL's 200 carries the INVITE's To tag").to.equal(toTagOf(ok));
    phone.send(inDialog('ACK', phone, 'x1', toTagOf(ok), 1), server.address.port);
    // and once the call is confirmed, too
    phone.send(cancel(phone, 'x1'), server.address.port);
    await until(() => responsesTo('x1', '1 CANCEL').length === 2);
    expect(responsesTo('x1', '1 CANCEL').map((m) => m.kind === 'response' && m.status)).to.deep.equal([200, 200]);
    await new Promise((r) => setTimeout(r, 100));
    expect(responsesTo('x1', '1 INVITE').map((m) => m.kind === 'response' && m.status)).not.to.include(487);
    expect(phone.received.some((m) => m.kind === 'request' && m.method === 'BYE')).to.equal(false);
    expect(server.activeCalls()).to.equal(1);
    expect(sessions[0]!.closed).to.equal(false);
    // a CANCEL naming another transaction of the call (its CSeq, its branch) matches nothing
    phone.send(cancel(phone, 'x1', 7), server.address.port);
    await until(() => responsesTo('x1', '7 CANCEL').length > 0);
    expect(responsesTo('x1', '7 CANCEL')[0]).to.include({ status: 481 });
    expect(server.activeCalls()).to.equal(1);
    phone.send(inDialog('BYE', phone, 'x1', toTagOf(ok), 2), server.address.port);
    await until(() => server.activeCalls() === 0);
    // an INVITE refused (no common codec) also had its final response: its CANCEL gets 200
    phone.send(invite(phone, 'x2', offer('96')), server.address.port);
    const refused = await phone.response(488, 'x2');
    phone.send(cancel(phone, 'x2'), server.address.port);
    await until(() => responsesTo('x2', '1 CANCEL').length > 0);
    expect(responsesTo('x2', '1 CANCEL')[0]).to.include({ status: 200 });
    expect(toTagOf(responsesTo('x2', '1 CANCEL')[0]!)).to.equal(toTagOf(refused));
  });

  it('a re-INVITE holding the call (sendonly) is answered recvonly with a new SDP version; the call goes on', async () => {
    await start();
    phone.send(invite(phone, 'h1'), server.address.port);
    const ok = await phone.response(200, 'h1');
    phone.send(inDialog('ACK', phone, 'h1', toTagOf(ok), 1), server.address.port);
    const hold = invite(phone, 'h1', offer().replace('t=0 0', 't=0 0\r\na=sendonly'), [], 2).replace(
      'To: <sip:svc@127.0.0.1>',
      `To: <sip:svc@127.0.0.1>;tag=${toTagOf(ok)}`,
    );
    phone.send(hold, server.address.port);
    await until(() => phone.received.some((m) => m.kind === 'response' && m.status === 200 && m.headers.get('cseq') === '2 INVITE'));
    const held = phone.received.find((m) => m.kind === 'response' && m.headers.get('cseq') === '2 INVITE')!;
    expect(held.body).to.include('a=recvonly');
    expect(/^o=svc \d+ (\d+)/m.exec(held.body)![1]).to.equal('2');
    expect(server.activeCalls()).to.equal(1);
  });

  it('a held call is not ended for no RTP (phones send none on hold); once resumed, the media timeout counts again', async () => {
    await start({ mediaTimeoutMs: 600 });
    phone.send(invite(phone, 'm1'), server.address.port);
    const ok = await phone.response(200, 'm1');
    phone.send(inDialog('ACK', phone, 'm1', toTagOf(ok), 1), server.address.port);
    const reInvite = (direction: string, cseq: number) =>
      invite(phone, 'm1', offer().replace('t=0 0', `t=0 0\r\na=${direction}`), [], cseq).replace(
        'To: <sip:svc@127.0.0.1>',
        `To: <sip:svc@127.0.0.1>;tag=${toTagOf(ok)}`,
      );
    phone.send(reInvite('sendonly', 2), server.address.port);
    await until(() => phone.received.some((m) => m.kind === 'response' && m.status === 200 && m.headers.get('cseq') === '2 INVITE'));
    await new Promise((r) => setTimeout(r, 2000));
    expect(phone.received.some((m) => m.kind === 'request' && m.method === 'BYE')).to.equal(false);
    expect(server.activeCalls()).to.equal(1);
    phone.send(reInvite('sendrecv', 3), server.address.port);
    const resumedAt = Date.now();
    await phone.request('BYE', 3000);
    expect(Date.now() - resumedAt).to.be.at.least(500);
    await until(() => server.activeCalls() === 0);
  });

  it("a re-INVITE without the call's codec gets 488 and the call goes on; the codec under a new payload type is answered with it", async () => {
    await start();
    phone.send(invite(phone, 'p1'), server.address.port);
    const ok = await phone.response(200, 'p1');
    expect(ok.body).to.include('a=rtpmap:0 PCMU/8000');
    phone.send(inDialog('ACK', phone, 'p1', toTagOf(ok), 1), server.address.port);
    const reInvite = (body: string, cseq: number) =>
      invite(phone, 'p1', body, [], cseq).replace('To: <sip:svc@127.0.0.1>', `To: <sip:svc@127.0.0.1>;tag=${toTagOf(ok)}`);
    const answerTo = (cseq: number) =>
      phone.received.find((m) => m.kind === 'response' && m.status >= 200 && m.headers.get('cseq') === `${cseq} INVITE`);
    // PCMA only: answering PCMU (left out of the offer) would be an answer the caller cannot use
    phone.send(reInvite(offer('8'), 2), server.address.port);
    await until(() => answerTo(2) !== undefined);
    expect(answerTo(2)).to.include({ status: 488 });
    expect(answerTo(2)!.headers.get('warning')).to.include("the call's codec (PCMU)");
    expect(server.activeCalls()).to.equal(1);
    phone.send(reInvite(offer('96') + 'a=rtpmap:96 PCMU/8000\r\n', 3), server.address.port);
    await until(() => answerTo(3) !== undefined);
    expect(answerTo(3)).to.include({ status: 200 });
    expect(answerTo(3)!.body).to.match(/^m=audio \d+ RTP\/AVP 96$/m);
    expect(answerTo(3)!.body).to.include('a=rtpmap:96 PCMU/8000');
    expect(/^o=svc \d+ (\d+)/m.exec(answerTo(3)!.body)![1]).to.equal('2');
  });

  it("an offerless re-INVITE (a session refresh) gets 200 with the call's SDP as the offer, not 488", async () => {
    await start();
    phone.send(invite(phone, 's1'), server.address.port);
    const ok = await phone.response(200, 's1');
    phone.send(inDialog('ACK', phone, 's1', toTagOf(ok), 1), server.address.port);
    const refresh = invite(phone, 's1', '', [], 2).replace('To: <sip:svc@127.0.0.1>', `To: <sip:svc@127.0.0.1>;tag=${toTagOf(ok)}`);
    phone.send(refresh, server.address.port);
    const answerTo = () => phone.received.find((m) => m.kind === 'response' && m.status >= 200 && m.headers.get('cseq') === '2 INVITE');
    await until(() => answerTo() !== undefined);
    expect(answerTo()).to.include({ status: 200 });
    // the same session description: the same m-line, the same version (nothing changed)
    expect(answerTo()!.body).to.equal(ok.body);
    expect(server.activeCalls()).to.equal(1);
  });

  it("an Opus call's re-INVITE offering Opus only (baresip's hold and resume) is answered 200, not 488", async () => {
    await start({}, burstLimiter(1000), 4, silentOpus);
    const opusOffer = (direction: string) =>
      offer('111 101').replace('t=0 0', `t=0 0\r\na=${direction}`) + 'a=rtpmap:111 opus/48000/2\r\na=rtpmap:101 telephone-event/48000\r\n';
    phone.send(invite(phone, 'o1', opusOffer('sendrecv')), server.address.port);
    const ok = await phone.response(200, 'o1');
    expect(ok.body).to.include('a=rtpmap:111 opus/48000/2');
    phone.send(inDialog('ACK', phone, 'o1', toTagOf(ok), 1), server.address.port);
    const reInvite = (direction: string, cseq: number) =>
      invite(phone, 'o1', opusOffer(direction), [], cseq).replace('To: <sip:svc@127.0.0.1>', `To: <sip:svc@127.0.0.1>;tag=${toTagOf(ok)}`);
    const answerTo = (cseq: number) =>
      phone.received.find((m) => m.kind === 'response' && m.status >= 200 && m.headers.get('cseq') === `${cseq} INVITE`);
    phone.send(reInvite('sendonly', 2), server.address.port);
    await until(() => answerTo(2) !== undefined);
    expect(answerTo(2)).to.include({ status: 200 });
    expect(answerTo(2)!.body).to.include('a=recvonly').and.include('opus/48000/2');
    phone.send(reInvite('sendrecv', 3), server.address.port);
    await until(() => answerTo(3) !== undefined);
    expect(answerTo(3)).to.include({ status: 200 });
    expect(answerTo(3)!.body).to.include('a=sendrecv');
    expect(server.activeCalls()).to.equal(1);
  });

  it('CANCEL of an unknown transaction: 481; malformed datagrams are dropped and the server keeps answering', async () => {
    await start();
    for (const junk of ['', 'x', '\r\n\r\n', 'INVITE sip:x SIP/2.0\r\nVia: a\r\n\r\n', 'A'.repeat(40_000).slice(0, 60_000)])
      phone.send(junk, server.address.port);
    phone.send(inDialog('CANCEL', phone, 'c10', 'x', 1).replace(/;tag=x/, ''), server.address.port);
    await phone.response(481, 'c10');
    phone.send(inDialog('REGISTER', phone, 'c11', 'x', 1).replace(/;tag=x/, ''), server.address.port);
    await phone.response(405, 'c11');
  });
});
