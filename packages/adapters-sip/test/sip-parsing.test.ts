import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { JitterBuffer, parseAudioOffer, parseRtp, parseSipMessage, SdpError, SipParseError, SipStreamFramer } from '../src/index.js';

const INVITE = [
  'INVITE sip:svc@127.0.0.1 SIP/2.0',
  'Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK1',
  'From: <sip:a@127.0.0.1>;tag=1',
  'To: <sip:svc@127.0.0.1>',
  'Call-ID: abc',
  'CSeq: 1 INVITE',
  'Content-Type: application/sdp',
].join('\r\n');

const sdp = (media: string, extra: string[] = []) =>
  ['v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=-', 'c=IN IP4 127.0.0.1', 't=0 0', media, ...extra, ''].join('\r\n');

describe('SIP parsing (adversarial input)', () => {
  it('parses a request, its compact headers and a body cut at Content-Length', () => {
    const body = 'v=0\r\n';
    const m = parseSipMessage(Buffer.from(`${INVITE.replace('Call-ID: abc', 'i: abc')}\r\nl: ${body.length}\r\n\r\n${body}trailing`));
    expect(m.kind).to.equal('request');
    expect(m.headers.get('call-id')).to.equal('abc');
    expect(m.body).to.equal(body);
  });

  it('refuses malformed messages with SipParseError, never another error', () => {
    const bad = [
      '',
      'garbage',
      'INVITE sip:x SIP/2.0\r\n\r\n',
      `${INVITE}\r\nContent-Length: 99999\r\n\r\nshort`,
      `${INVITE}\r\nContent-Length: -1\r\n\r\n`,
      `${INVITE.replace('CSeq: 1 INVITE', 'CSeq: x')}\r\n\r\n`,
      `${INVITE.replace(/^INVITE .*$/m, 'INVITE  SIP/2.0')}\r\n\r\n`,
      `${INVITE}\r\n: no name\r\n\r\n`,
      ` folded first\r\n${INVITE}\r\n\r\n`,
    ];
    for (const text of bad) expect(() => parseSipMessage(Buffer.from(text)), JSON.stringify(text)).to.throw(SipParseError);
    // random bytes, many times: only SipParseError
    for (let i = 0; i < 500; i++) {
      try {
        parseSipMessage(randomBytes(1 + (i % 300)));
      } catch (err) {
        expect(err).to.be.instanceOf(SipParseError);
      }
    }
  });

  it('refuses a message over the size limit and a header flood before reading them', () => {
    expect(() => parseSipMessage(Buffer.alloc(20_000, 'a'), { maxMessageBytes: 16_384, maxHeaders: 64 })).to.throw(
      SipParseError,
      /over the limit/,
    );
    const flood = `${INVITE}\r\n${Array.from({ length: 100 }, (_, i) => `X-${i}: y`).join('\r\n')}\r\n\r\n`;
    expect(() => parseSipMessage(Buffer.from(flood))).to.throw(SipParseError, /header lines/);
  });

  it("SDP: picks the caller's first G.711 format, telephone-event, and the media address", () => {
    const offer = parseAudioOffer(
      sdp('m=audio 4000 RTP/AVP 96 8 0 101', ['c=IN IP4 127.0.0.2', 'a=rtpmap:96 opus/48000/2', 'a=rtpmap:101 telephone-event/8000']),
    );
    expect(offer).to.include({
      codec: 'PCMA',
      payloadType: 8,
      telephoneEvent: 101,
      address: '127.0.0.2',
      port: 4000,
      direction: 'sendrecv',
    });
  });

  it('SDP: no common codec is a 488; a bomb of m-lines or formats and a non-SDP are 400', () => {
    const noCodec = () => parseAudioOffer(sdp('m=audio 4000 RTP/AVP 96', ['a=rtpmap:96 opus/48000/2']));
    expect(noCodec).to.throw(SdpError).with.property('status', 488);
    const manyMedia = sdp(Array.from({ length: 50 }, () => 'm=audio 4000 RTP/AVP 0').join('\r\n'));
    expect(() => parseAudioOffer(manyMedia))
      .to.throw(SdpError)
      .with.property('status', 400);
    const manyFormats = sdp(`m=audio 4000 RTP/AVP ${Array.from({ length: 100 }, (_, i) => i).join(' ')}`);
    expect(() => parseAudioOffer(manyFormats))
      .to.throw(SdpError)
      .with.property('status', 400);
    const manyLines = sdp(
      'm=audio 4000 RTP/AVP 0',
      Array.from({ length: 1000 }, () => 'a=x'),
    );
    expect(() => parseAudioOffer(manyLines))
      .to.throw(SdpError)
      .with.property('status', 400);
    expect(() => parseAudioOffer('hello'))
      .to.throw(SdpError)
      .with.property('status', 400);
  });

  it('RTP: short, wrong-version and lying packets are dropped (null)', () => {
    expect(parseRtp(Buffer.alloc(5))).to.equal(null);
    expect(parseRtp(Buffer.from([0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))).to.equal(null);
    // 15 CSRCs announced in a 20-byte packet
    expect(parseRtp(Buffer.concat([Buffer.from([0x8f, 0]), Buffer.alloc(18)]))).to.equal(null);
    const ok = parseRtp(Buffer.concat([Buffer.from([0x80, 0x00, 0, 7, 0, 0, 0, 160, 0, 0, 0, 1]), Buffer.alloc(160, 0xff)]));
    expect(ok).to.include({ payloadType: 0, sequence: 7, timestamp: 160 });
    expect(ok!.payload.length).to.equal(160);
  });

  it('the jitter buffer puts reordered packets back in order, drops duplicates and late ones, and plays on past a loss', () => {
    const jb = new JitterBuffer<number>(3);
    const out: number[] = [];
    for (const seq of [10, 12, 11, 11, 9, 13, 15, 16, 17, 18]) out.push(...jb.push(seq, seq));
    // 14 was lost: once three are held the buffer plays on from 15
    expect(out).to.deep.equal([10, 11, 12, 13, 15, 16, 17, 18]);
    const wrap = new JitterBuffer<number>(3);
    expect([65535, 0, 1].flatMap((s) => wrap.push(s, s))).to.deep.equal([65535, 0, 1]);
  });

  it('jitter buffer: a sequence started again far behind (a new stream) is heard, not dropped as late', () => {
    const jb = new JitterBuffer<number>(3);
    const first = Array.from({ length: 10 }, (_, i) => 30000 + i);
    expect(first.flatMap((s) => jb.push(s, s))).to.deep.equal(first);
    // a PBX's new stream after a transfer: it numbers from anywhere, here 20,000 behind
    const second = Array.from({ length: 10 }, (_, i) => 10000 + i);
    expect(second.flatMap((s) => jb.push(s, s))).to.deep.equal(second);
    // a straggler of the first stream, a little behind the new playout point's past, is still dropped
    expect(jb.push(10005, 10005)).to.deep.equal([]);
  });

  it('TCP framing: messages cut at Content-Length across chunks, keep-alive CRLFs skipped; no length or an endless header is an error', () => {
    const one = `${INVITE}\r\nContent-Length: 5\r\n\r\nv=0\r\n`;
    const stream = Buffer.from(`\r\n\r\n${one}${one}`);
    const framer = new SipStreamFramer(16_384);
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i += 7) out.push(...framer.push(stream.subarray(i, i + 7)));
    expect(out.map((b) => b.toString())).to.deep.equal([one, one]);
    expect(() => new SipStreamFramer(16_384).push(Buffer.from(`${INVITE}\r\n\r\n`))).to.throw(SipParseError, /Content-Length/);
    const endless = new SipStreamFramer(1024);
    expect(() => {
      for (let i = 0; i < 100; i++) endless.push(Buffer.from('X-Header: yyyyyyyyyyyyyyyy\r\n'));
    }).to.throw(SipParseError, /longer than/);
    expect(() => new SipStreamFramer(1024).push(Buffer.from(`${INVITE}\r\nContent-Length: 999999\r\n\r\n`))).to.throw(
      SipParseError,
      /over the limit/,
    );
  });
});
