import { expect } from 'chai';
import { createSocket, type Socket } from 'node:dgram';
import { parseRtp, serializeRtp, SipServer, type RtpPacket, type SipCall } from '../src/index.js';
import { inDialog, invite, offer, Phone, standInSipServer, toTagOf, until } from './helpers/udp-phone.js';

/** What PCMU encodes silence as (mu-law of 0). */
const PCMU_SILENCE = 0xff;
/** A pause for packets that must NOT arrive. */
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The caller's media socket: keeps every RTP packet the service sends it. */
async function callerMedia(): Promise<{ socket: Socket; port: number; got: RtpPacket[] }> {
  const socket = createSocket('udp4');
  const got: RtpPacket[] = [];
  socket.on('message', (m) => {
    const p = parseRtp(m);
    if (p) got.push(p);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return { socket, port: socket.address().port, got };
}

const isSilence = (p: RtpPacket) => p.payload.every((b) => b === PCMU_SILENCE);

/**
 * Every packet after the first: one SSRC, sequence +1, timestamp +160 (20 ms at 8 kHz). The one
 * exception allowed is the stream's resync after the event loop stalled for over 100 ms (a loaded
 * machine): a timestamp jump of whole packets, never an overlap; at most twice.
 */
function expectUnbroken(packets: RtpPacket[], what: string): void {
  let resyncs = 0;
  for (let i = 1; i < packets.length; i++) {
    const [a, b] = [packets[i - 1]!, packets[i]!];
    expect(b.ssrc, `${what}: one SSRC`).to.equal(a.ssrc);
    expect(b.sequence, `${what}: sequence of packet ${i}`).to.equal((a.sequence + 1) & 0xffff);
    const step = (b.timestamp - a.timestamp) >>> 0;
    if (step !== 160) {
      expect(step % 160 === 0 && step > 160 * 5, `${what}: timestamp step ${step} at packet ${i}`).to.equal(true);
      resyncs++;
    }
  }
  expect(resyncs, `${what}: resyncs`).to.be.at.most(2);
}

describe('SIP call media: one continuous RTP stream for the life of the call (real sockets, a stand-in session)', function () {
  this.timeout(20_000);
  let server: SipServer;
  let phone: Phone;
  let media: Awaited<ReturnType<typeof callerMedia>>;

  beforeEach(async () => {
    ({ server } = await standInSipServer({ sessions: [] }));
    phone = await new Phone().open();
    media = await callerMedia();
  });

  afterEach(async () => {
    phone.close();
    media.socket.close();
    await server.close();
  });

  /** A PCMU call answered and confirmed, the caller's first packet sent (the stream latches to it). */
  async function answeredCall(): Promise<{ call: SipCall; toTag: string; rtpPort: number }> {
    let call: SipCall | null = null;
    const stop = server.onCallAnswered((c) => (call = c));
    phone.send(invite(phone, 's1', offer('0').replace('m=audio 40000', `m=audio ${media.port}`)), server.address.port);
    const ok = await phone.response(200, 's1');
    stop();
    const toTag = toTagOf(ok);
    phone.send(inDialog('ACK', phone, 's1', toTag, 1), server.address.port);
    const rtpPort = Number(/^m=audio (\d+)/m.exec(ok.body)![1]);
    const first = serializeRtp({ payloadType: 0, sequence: 1, timestamp: 0, ssrc: 7, marker: true, payload: Buffer.alloc(160, 0xff) });
    media.socket.send(first, rtpPort, '127.0.0.1');
    return { call: call!, toTag, rtpPort };
  }

  function reInvite(toTag: string, direction: string, cseq: number): string {
    return invite(
      phone,
      's1',
      offer('0').replace('m=audio 40000', `m=audio ${media.port}`).replace('t=0 0', `t=0 0\r\na=${direction}`),
      [],
      cseq,
    ).replace('To: <sip:svc@127.0.0.1>', `To: <sip:svc@127.0.0.1>;tag=${toTag}`);
  }

  it('sends silence between replies and the reply in the same stream: sequence and timestamps unbroken, the marker at the reply', async () => {
    const { call } = await answeredCall();
    // silence before any reply: a packet per 20 ms, none marked
    await until(() => media.got.length >= 10);
    expect(media.got.every(isSilence), 'silence before any reply').to.equal(true);
    expect(
      media.got.some((p) => p.marker),
      'no marker on silence',
    ).to.equal(false);

    // a reply of 200 ms of tone, then silence again
    const playout = call.media.replyTrack.open();
    const tone = Int16Array.from({ length: 1600 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));
    const before = media.got.length;
    await playout.write(tone, new AbortController().signal);
    await playout.finish();
    await until(() => media.got.length >= before + 10 + 10 && isSilence(media.got.at(-1)!));
    const replyAt = media.got.findIndex((p) => !isSilence(p));
    expect(replyAt, 'the reply is in the stream').to.be.above(0);
    expect(media.got[replyAt]!.marker, 'the marker starts the talk spurt').to.equal(true);
    const reply = media.got.slice(replyAt, replyAt + 10);
    expect(
      reply.every((p) => !isSilence(p)),
      'ten packets of reply',
    ).to.equal(true);
    expect(
      reply.slice(1).some((p) => p.marker),
      'one marker per talk spurt',
    ).to.equal(false);
    expect(isSilence(media.got[replyAt + 10]!), 'silence again after the reply').to.equal(true);
    expectUnbroken(media.got, 'silence, reply, silence');
  });

  it('stops while the caller holds the call and after BYE; resumes unbroken in sequence after the hold', async () => {
    const { toTag } = await answeredCall();
    await until(() => media.got.length >= 5);
    phone.send(reInvite(toTag, 'sendonly', 2), server.address.port);
    await until(() => phone.received.some((m) => m.kind === 'response' && m.status === 200 && m.headers.get('cseq') === '2 INVITE'));
    await settle(100);
    const held = media.got.length;
    await settle(400);
    expect(media.got.length, 'nothing sent on hold').to.equal(held);

    phone.send(reInvite(toTag, 'sendrecv', 3), server.address.port);
    await until(() => media.got.length >= held + 5);
    const [last, resumed] = [media.got[held - 1]!, media.got[held]!];
    expect(resumed.ssrc).to.equal(last.ssrc);
    expect(resumed.sequence, 'the sequence goes on (nothing was lost)').to.equal((last.sequence + 1) & 0xffff);
    expect((resumed.timestamp - last.timestamp) >>> 0, 'the timestamp jumps over the hold').to.be.above(160 * 10);
    expectUnbroken(media.got.slice(held), 'after the hold');

    phone.send(inDialog('BYE', phone, 's1', toTag, 4), server.address.port);
    await until(() => phone.received.some((m) => m.kind === 'response' && m.status === 200 && m.headers.get('cseq') === '4 BYE'));
    await settle(100);
    const ended = media.got.length;
    await settle(300);
    expect(media.got.length, 'nothing sent after BYE').to.equal(ended);
  });
});
