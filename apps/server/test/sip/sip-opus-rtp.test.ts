import { expect } from 'chai';
import { createSocket, type Socket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { OpusscriptOpusCodec } from '@svc/adapters-media';
import { RtpMedia, parseRtp, serializeRtp, type AudioOffer } from '@svc/adapters-sip';
import { rms } from '../helpers/baresip.js';
import { waitUntil } from '../helpers/wait-until.js';

/** 20 ms of a 440 Hz tone at 48 kHz, starting at sample `from`. */
const tone = (from: number) =>
  Int16Array.from({ length: 960 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * (from + i)) / 48000)));

describe('SIP media: Opus over RTP with the real libopus (WASM), and Opus garbage', () => {
  const codec = new OpusscriptOpusCodec();
  const offer: AudioOffer = {
    address: '127.0.0.1',
    port: 9,
    codec: 'opus',
    payloadType: 111,
    telephoneEvent: 101,
    telephoneEventRate: 8000,
    direction: 'sendrecv',
  };
  let caller: Socket;
  const got: Buffer[] = [];
  beforeEach(async () => {
    got.length = 0;
    caller = createSocket('udp4');
    caller.on('message', (m) => got.push(m));
    await new Promise<void>((r) => caller.bind(0, '127.0.0.1', () => r()));
  });
  afterEach(() => caller.close());

  it("decodes the caller's Opus to 48 kHz, sends the reply as Opus the caller decodes; garbage payloads are dropped and the call goes on", async () => {
    const heard: Int16Array[] = [];
    const media = new RtpMedia(offer, new Set(['127.0.0.1']), { audio: (s) => heard.push(s), heard: () => undefined }, codec);
    expect(media.sampleRate).to.equal(48000);
    const port = await media.open('127.0.0.1');
    const encoder = codec.createEncoder(20);
    let sequence = 0;
    const send = (payload: Uint8Array) =>
      caller.send(
        serializeRtp({
          payloadType: 111,
          sequence: ++sequence,
          timestamp: sequence * 960,
          ssrc: 1,
          marker: false,
          payload: Buffer.from(payload),
        }),
        port,
        '127.0.0.1',
      );
    try {
      for (let i = 0; i < 5; i++) for (const packet of encoder.encode(tone(i * 960))) send(packet);
      await waitUntil(() => heard.length === 5, 'the packets', 5_000);
      expect(heard.every((s) => s.length === 960)).to.equal(true);
      expect(rms(heard[4]!), 'the tone comes through').to.be.above(2000);

      // garbage: random bytes, an empty payload, a TOC claiming 48 frames of nothing, a code-3 packet with a lying count
      const garbage = [
        ...Array.from({ length: 40 }, (_, i) => randomBytes(1 + ((i * 37) % 600))),
        Buffer.alloc(0),
        Buffer.from([0xff, 0xff]),
        Buffer.from([0x03, 0xbf, ...randomBytes(20)]),
      ];
      for (const g of garbage) send(g);
      for (let i = 5; i < 10; i++) for (const packet of encoder.encode(tone(i * 960))) send(packet);
      await waitUntil(() => media.packetsReceived === 5 + garbage.length + 5, 'the packets', 5_000);
      expect(media.packetsUndecodable, 'garbage refused by libopus is counted and dropped').to.be.above(0);
      await waitUntil(() => rms(heard.at(-1)!) > 2000, 'the packets', 5_000);

      media.sendFrame(tone(0), true);
      media.sendFrame(tone(960), false);
      await waitUntil(() => got.length === 2, 'the packets', 5_000);
      const reply = got.map((d) => parseRtp(d)!);
      expect(reply.map((p) => p.payloadType)).to.deep.equal([111, 111]);
      expect(reply[1]!.timestamp - reply[0]!.timestamp, 'the RTP clock is 48 kHz').to.equal(960);
      const decoded = await codec.decode(
        reply.map((p) => new Uint8Array(p.payload)),
        20,
      );
      expect(decoded.samples.length).to.equal(1920);
      expect(rms(decoded.samples.subarray(960)), 'the reply decodes to the tone').to.be.above(2000);
    } finally {
      encoder.flush();
      media.close();
    }
  });

  it('between replies an Opus call gets 20 ms Opus silence frames in the same stream: timestamps +960, decoding to silence', async () => {
    const media = new RtpMedia(offer, new Set(['127.0.0.1']), { audio: () => undefined, heard: () => undefined }, codec);
    const port = await media.open('127.0.0.1');
    try {
      const first = serializeRtp({
        payloadType: 111,
        sequence: 1,
        timestamp: 0,
        ssrc: 1,
        marker: false,
        payload: Buffer.from([0xf8, 0xff, 0xfe]),
      });
      caller.send(first, port, '127.0.0.1');
      await waitUntil(() => media.sending, 'the latch on the first packet', 5_000);
      media.sendFrame(tone(0), true);
      media.sendSilence();
      media.sendSilence();
      await waitUntil(() => got.length === 3, 'the packets', 5_000);
      const packets = got.map((d) => parseRtp(d)!);
      expect(packets.map((p) => p.payloadType)).to.deep.equal([111, 111, 111]);
      expect(packets.map((p) => p.marker)).to.deep.equal([true, false, false]);
      expect(packets.map((p) => (p.timestamp - packets[0]!.timestamp) >>> 0)).to.deep.equal([0, 960, 1920]);
      expect(packets.map((p) => (p.sequence - packets[0]!.sequence) & 0xffff)).to.deep.equal([0, 1, 2]);
      const decoded = await codec.decode(
        packets.map((p) => new Uint8Array(p.payload)),
        20,
      );
      expect(rms(decoded.samples.subarray(960 * 2 + 480)), 'the silence frames decode to (near) silence').to.be.below(100);
    } finally {
      media.close();
    }
  });
});
