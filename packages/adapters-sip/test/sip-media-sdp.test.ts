import { expect } from 'chai';
import { buildAudioAnswer, parseAudioOffer, SdpError } from '../src/index.js';

const sdp = (media: string, extra: string[] = []) =>
  ['v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=-', 'c=IN IP4 127.0.0.1', 't=0 0', media, ...extra, ''].join('\r\n');

describe('SDP: Opus, telephone-event and codec bombs', () => {
  it('prefers Opus over G.711 when the caller offers it and the server has it, wherever it is in the list', () => {
    const offer = sdp('m=audio 4000 RTP/AVP 0 8 111 101', ['a=rtpmap:111 opus/48000/2', 'a=rtpmap:101 telephone-event/8000']);
    expect(parseAudioOffer(offer, { opus: true })).to.include({
      codec: 'opus',
      payloadType: 111,
      telephoneEvent: 101,
      telephoneEventRate: 8000,
    });
    expect(parseAudioOffer(offer, { opus: false })).to.include({ codec: 'PCMU', payloadType: 0 });
    expect(parseAudioOffer(offer)).to.include({ codec: 'PCMU' });
  });

  it("takes telephone-event at the codec's clock rate when offered, else at 8 kHz", () => {
    const both = sdp('m=audio 4000 RTP/AVP 111 0 101 110', [
      'a=rtpmap:111 opus/48000/2',
      'a=rtpmap:101 telephone-event/8000',
      'a=rtpmap:110 telephone-event/48000',
    ]);
    expect(parseAudioOffer(both, { opus: true })).to.include({ codec: 'opus', telephoneEvent: 110, telephoneEventRate: 48000 });
    expect(parseAudioOffer(both, { opus: false })).to.include({ codec: 'PCMU', telephoneEvent: 101, telephoneEventRate: 8000 });
    expect(parseAudioOffer(sdp('m=audio 4000 RTP/AVP 0'))).to.include({ telephoneEvent: null });
  });

  it('answers Opus as opus/48000/2 (mono), with telephone-event at the rate offered', () => {
    const offer = parseAudioOffer(sdp('m=audio 4000 RTP/AVP 111 101', ['a=rtpmap:111 opus/48000/2', 'a=rtpmap:101 telephone-event/8000']), {
      opus: true,
    });
    const answer = buildAudioAnswer(offer, { address: '127.0.0.1', port: 5000, sessionId: 1 });
    expect(answer).to.match(/^m=audio 5000 RTP\/AVP 111 101\r$/m);
    expect(answer).to.match(/^a=rtpmap:111 opus\/48000\/2\r$/m);
    expect(answer).to.match(/^a=fmtp:111 stereo=0/m);
    expect(answer).to.match(/^a=rtpmap:101 telephone-event\/8000\r$/m);
    expect(answer).not.to.match(/PCMU/);
  });

  it('an Opus-only offer to a server without Opus is a 488; an SDP of 1000 codecs is a 400, cheaply', () => {
    const opusOnly = sdp('m=audio 4000 RTP/AVP 111', ['a=rtpmap:111 opus/48000/2']);
    expect(() => parseAudioOffer(opusOnly, { opus: false }))
      .to.throw(SdpError)
      .with.property('status', 488);
    const formats = Array.from({ length: 1000 }, (_, i) => 96 + (i % 32));
    const bomb = sdp(
      `m=audio 4000 RTP/AVP ${formats.join(' ')}`,
      formats.map((pt) => `a=rtpmap:${pt} opus/48000/2`),
    );
    const started = process.hrtime.bigint();
    expect(() => parseAudioOffer(bomb, { opus: true }))
      .to.throw(SdpError)
      .with.property('status', 400);
    // 1000 rtpmap lines alone (a short m-line) are refused by the line count, before any is read
    const lines = sdp(
      'm=audio 4000 RTP/AVP 111',
      Array.from({ length: 1000 }, (_, i) => `a=rtpmap:${i} opus/48000/2`),
    );
    expect(() => parseAudioOffer(lines, { opus: true }))
      .to.throw(SdpError)
      .with.property('status', 400);
    expect(Number(process.hrtime.bigint() - started) / 1e6, 'ms to refuse both').to.be.below(1000);
  });

  it('an audio port that is not 0-65535 (above, negative, not a number) is a 488 naming the port; 65535 is one', () => {
    for (const port of ['65536', '99999', '-1', 'abc', '1e3', '4000/2']) {
      expect(() => parseAudioOffer(sdp(`m=audio ${port} RTP/AVP 0`)), port)
        .to.throw(SdpError, `audio port ${port} is not a port number from 0 to 65535`)
        .with.property('status', 488);
      // not skipped for another stream either: the offer as a whole is malformed
      expect(() => parseAudioOffer(sdp(`m=audio ${port} RTP/AVP 0\r\nm=audio 4000 RTP/AVP 0`)), `${port}, then 4000`).to.throw(
        SdpError,
        'is not a port number',
      );
    }
    expect(parseAudioOffer(sdp('m=audio 65535 RTP/AVP 0'))).to.include({ port: 65535, codec: 'PCMU' });
  });

  it('port 0 (a disabled stream, RFC 3264): another audio stream is answered; without one, a 488 that says so', () => {
    expect(() => parseAudioOffer(sdp('m=audio 0 RTP/AVP 0 8')))
      .to.throw(SdpError, 'the offer disables its audio (port 0)')
      .with.property('status', 488);
    const second = parseAudioOffer(sdp('m=audio 0 RTP/AVP 0', ['m=audio 4002 RTP/AVP 8']));
    expect(second).to.include({ port: 4002, codec: 'PCMA' });
  });
});
