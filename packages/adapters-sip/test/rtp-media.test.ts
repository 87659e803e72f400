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

describe('RtpMedia (real UDP on loopback)', () => {
  it("sends nothing before the caller's first packet, then replies to where it came from; strangers are ignored", async () => {
    const sdpTarget = await listener();
    const caller = await listener();
    const heard: Int16Array[] = [];
    const offer: AudioOffer = {
      address: '127.0.0.1',
      port: sdpTarget.port,
      codec: 'PCMU',
      payloadType: 0,
      telephoneEvent: null,
      direction: 'sendrecv',
    };
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

  it("drops packets from an address that is neither the caller's signalling nor its SDP address", async () => {
    const heard: Int16Array[] = [];
    const offer: AudioOffer = { address: '127.0.0.9', port: 9, codec: 'PCMA', payloadType: 8, telephoneEvent: null, direction: 'sendrecv' };
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
    } finally {
      media.close();
      stranger.socket.close();
    }
  });
});
