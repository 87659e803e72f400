import { expect } from 'chai';
import { createSocket, type Socket } from 'node:dgram';
import { RtpMedia, parseRtp, serializeRtp, type AudioOffer } from '../src/index.js';

/** A UDP socket on loopback that keeps what it receives. */
async function listener(): Promise<{ socket: Socket; port: number; got: Buffer[] }> {
  const socket = createSocket('udp4');
  const got: Buffer[] = [];
  socket.on('message', (m) => got.push(m));
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return { socket, port: socket.address().port, got };
}

/** A pause for a packet that must NOT arrive (what must arrive is awaited with `until`). */
const settle = () => new Promise((r) => setTimeout(r, 100));

async function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A caller's offer on loopback: PCMU (payload type 0) unless `changes` say otherwise. */
function offerAt(port: number, changes: Partial<AudioOffer> = {}): AudioOffer {
  return {
    address: '127.0.0.1',
    port,
    codec: 'PCMU',
    payloadType: 0,
    telephoneEvent: null,
    telephoneEventRate: 8000,
    direction: 'sendrecv',
    ...changes,
  };
}

describe('RtpMedia (real UDP on loopback)', () => {
  it("sends nothing before the caller's first packet, then replies to where it came from; strangers are ignored", async () => {
    const sdpTarget = await listener();
    const caller = await listener();
    const heard: Int16Array[] = [];
    const offer = offerAt(sdpTarget.port);
    const media = new RtpMedia(offer, new Set(['127.0.0.1']), { audio: (s) => heard.push(s), heard: () => undefined });
    const port = await media.open('127.0.0.1');
    try {
      media.sendFrame(new Int16Array(160).fill(1000), true);
      await settle();
      expect(sdpTarget.got, 'nothing aimed at the SDP address before the caller spoke').to.have.length(0);
      const packet = serializeRtp({ payloadType: 0, sequence: 1, timestamp: 0, ssrc: 7, marker: true, payload: Buffer.alloc(160, 0xff) });
      caller.socket.send(packet, port, '127.0.0.1');
      await until(() => heard.length === 1);
      media.sendFrame(new Int16Array(160).fill(1000), true);
      await until(() => caller.got.length === 1);
      expect(parseRtp(caller.got[0]!)).to.include({ payloadType: 0, marker: true });
      expect(sdpTarget.got).to.have.length(0);
    } finally {
      media.close();
      sdpTarget.socket.close();
      caller.socket.close();
    }
  });

  it("a re-offer's new payload type for the call's codec is heard and sent from then on", async () => {
    const caller = await listener();
    const heard: Int16Array[] = [];
    const offer = offerAt(caller.port);
    const media = new RtpMedia(offer, new Set(['127.0.0.1']), { audio: (s) => heard.push(s), heard: () => undefined });
    const port = await media.open('127.0.0.1');
    try {
      media.update({ ...offer, payloadType: 96 });
      const packet = serializeRtp({ payloadType: 96, sequence: 1, timestamp: 0, ssrc: 7, marker: true, payload: Buffer.alloc(160, 0xff) });
      caller.socket.send(packet, port, '127.0.0.1');
      await until(() => heard.length === 1);
      media.sendFrame(new Int16Array(160), true);
      await until(() => caller.got.length === 1);
      expect(parseRtp(caller.got[0]!)).to.include({ payloadType: 96 });
      expect(media.codec).to.equal('PCMU');
    } finally {
      media.close();
      caller.socket.close();
    }
  });

  it('a new stream from the caller (another SSRC) is heard even when its sequence is just behind the old one', async () => {
    const caller = await listener();
    const heard: Int16Array[] = [];
    const offer = offerAt(caller.port);
    const media = new RtpMedia(offer, new Set(['127.0.0.1']), { audio: (s) => heard.push(s), heard: () => undefined });
    const port = await media.open('127.0.0.1');
    const rtp = (ssrc: number, sequence: number) =>
      serializeRtp({ payloadType: 0, sequence, timestamp: sequence * 160, ssrc, marker: false, payload: Buffer.alloc(160, 0xff) });
    try {
      for (let s = 500; s < 505; s++) caller.socket.send(rtp(7, s), port, '127.0.0.1');
      await until(() => heard.length === 5);
      // a PBX bridged the call elsewhere: a new SSRC numbering from 460, within the late-packet window of the old one
      for (let s = 460; s < 465; s++) caller.socket.send(rtp(8, s), port, '127.0.0.1');
      await until(() => heard.length === 10);
    } finally {
      media.close();
      caller.socket.close();
    }
  });

  it("drops packets from an address that is neither the caller's signalling nor its SDP address", async () => {
    const heard: Int16Array[] = [];
    const offer = offerAt(9, { address: '127.0.0.9', codec: 'PCMA', payloadType: 8 });
    const media = new RtpMedia(offer, new Set(['127.0.0.9']), { audio: (s) => heard.push(s), heard: () => undefined });
    const port = await media.open('127.0.0.1');
    const stranger = await listener();
    try {
      stranger.socket.send(
        serializeRtp({ payloadType: 8, sequence: 1, timestamp: 0, ssrc: 7, marker: true, payload: Buffer.alloc(160, 0xd5) }),
        port,
        '127.0.0.1',
      );
      await settle();
      expect(heard).to.have.length(0);
      // counted, for the call's log: a caller heard as silence while its packets come from elsewhere
      expect(media.packetsFromStrangers).to.equal(1);
      expect(media.lastStranger).to.equal('127.0.0.1');
    } finally {
      media.close();
      stranger.socket.close();
    }
  });
});

describe('RtpMedia: telephone-events and comfort noise (real UDP on loopback)', () => {
  const offer = offerAt(9, { telephoneEvent: 101 });
  const audio = (sequence: number) =>
    serializeRtp({ payloadType: 0, sequence, timestamp: sequence * 160, ssrc: 7, marker: false, payload: Buffer.alloc(160, 0x80) });
  const dtmf = (sequence: number, timestamp: number, key: number, end: boolean) =>
    serializeRtp({
      payloadType: 101,
      sequence,
      timestamp,
      ssrc: 7,
      marker: false,
      payload: Buffer.from([key, end ? 0x8a : 0x0a, 0x03, 0x20]),
    });

  it('delivers each key press once, in order, though its packets come reordered, repeated and mixed with malformed ones', async () => {
    const keys: string[] = [];
    const heard: Int16Array[] = [];
    const media = new RtpMedia(offer, new Set(['127.0.0.1']), {
      audio: (s) => heard.push(s),
      heard: () => undefined,
      keypress: (p) => keys.push(p.key),
    });
    const port = await media.open('127.0.0.1');
    const caller = await listener();
    try {
      const packets = [
        audio(1),
        dtmf(2, 320, 1, false),
        dtmf(4, 320, 1, true),
        dtmf(3, 320, 1, false), // reordered
        dtmf(5, 320, 1, true),
        dtmf(6, 320, 1, true),
        serializeRtp({ payloadType: 101, sequence: 7, timestamp: 999, ssrc: 7, marker: false, payload: Buffer.from([1]) }), // too short
        dtmf(9, 2000, 11, true), // '#' before '9' on the wire: the jitter buffer puts it after
        dtmf(8, 1500, 9, true),
        dtmf(10, 2000, 11, true),
        dtmf(11, 2000, 11, true),
        serializeRtp({ payloadType: 101, sequence: 12, timestamp: 3000, ssrc: 7, marker: false, payload: Buffer.from([200, 0x80, 0, 0]) }), // not a key
        audio(13),
        audio(14),
        audio(15),
        audio(16),
      ];
      for (const p of packets) caller.socket.send(p, port, '127.0.0.1');
      await until(() => heard.length >= 3);
      expect(keys).to.deep.equal(['1', '9', '#']);
      expect(media.packetsReceived, 'only audio payloads count as audio').to.be.at.least(3);
      for (const s of heard) expect(s.length).to.equal(160);
    } finally {
      media.close();
      caller.socket.close();
    }
  });

  it('comfort noise (PT 13) is not decoded as speech: the session hears silence until audio resumes', async () => {
    const heard: Int16Array[] = [];
    const media = new RtpMedia(offer, new Set(['127.0.0.1']), { audio: (s) => heard.push(s), heard: () => undefined });
    const port = await media.open('127.0.0.1');
    const caller = await listener();
    try {
      caller.socket.send(audio(1), port, '127.0.0.1');
      // a loud-looking CN payload: level byte 0 is the loudest comfort noise RFC 3389 can say
      caller.socket.send(
        serializeRtp({ payloadType: 13, sequence: 2, timestamp: 320, ssrc: 7, marker: false, payload: Buffer.from([0, 1, 2, 3, 4]) }),
        port,
        '127.0.0.1',
      );
      await until(() => heard.length >= 6);
      const afterCn = heard.slice(1);
      for (const frame of afterCn) {
        expect(frame.length, '20 ms frames at 8 kHz').to.equal(160);
        expect(
          frame.every((s) => s === 0),
          'silence, not the CN payload decoded',
        ).to.equal(true);
      }
      expect(media.packetsReceived).to.equal(1);
      caller.socket.send(audio(3), port, '127.0.0.1');
      await until(() => media.packetsReceived === 2);
      const count = heard.length;
      await settle();
      expect(heard.length, 'no more silence once audio resumed').to.equal(count);
    } finally {
      media.close();
      caller.socket.close();
    }
  });
});
