import { expect } from 'chai';
import type { OpusCodec } from '@svc/core';
import type { RtpPacket } from 'werift';
import { RtpAudioTrack } from '../src/rtp-audio-track.js';

/** An "encoder" that turns each 20 ms frame into one packet carrying its first sample (to follow the audio). */
const FRAME_CODEC = {
  createEncoder: () => ({ encode: (pcm: Int16Array) => [new Uint8Array([pcm[0]! & 0xff, pcm.length / 480])], flush: () => [] }),
  createDecoder: () => {
    throw new Error('unused');
  },
  decode: () => {
    throw new Error('unused');
  },
} as unknown as OpusCodec;

function track(leadMs = 100) {
  let now = 0;
  const packets: RtpPacket[] = [];
  const t = new RtpAudioTrack({ sendRtp: (p) => packets.push(p) }, 111, { opus: FRAME_CODEC, leadMs, now: () => now });
  return {
    t,
    packets,
    /** Moves the clock and runs the pacing as its timer would. */
    at(ms: number) {
      now = ms;
      t.tick();
    },
  };
}

const ms = (n: number, value = 1) => new Int16Array(n * 48).fill(value);
const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('RtpAudioTrack: reply audio as Opus RTP, paced in real time', () => {
  it('sends one 20 ms packet per frame as time passes: consecutive sequence numbers, timestamps 960 apart, marker on the first', async () => {
    const { t, packets, at } = track();
    const playout = t.open();
    void playout.write(ms(100), new AbortController().signal);
    at(0);
    expect(packets).to.have.length(1);
    at(45);
    expect(packets).to.have.length(3);
    at(100);
    expect(packets).to.have.length(5);
    expect(playout.sentMs()).to.equal(100);
    const seq = packets.map((p) => p.header.sequenceNumber);
    const ts = packets.map((p) => p.header.timestamp);
    for (let i = 1; i < packets.length; i++) {
      expect((seq[i]! - seq[i - 1]!) & 0xffff).to.equal(1);
      expect((ts[i]! - ts[i - 1]!) >>> 0).to.equal(960);
    }
    expect(packets.map((p) => p.header.marker)).to.deep.equal([true, false, false, false, false]);
    t.close();
  });

  it('holds the writer while more than the lead waits unsent (backpressure on synthesis)', async () => {
    const { t, at } = track(100);
    const playout = t.open();
    const write = playout.write(ms(300), new AbortController().signal);
    at(0);
    expect(await settled(write), '280 ms queued > 100 ms lead').to.equal(false);
    at(100);
    expect(await settled(write), '180 ms queued').to.equal(false);
    at(200);
    expect(await settled(write), 'sent 220, 80 ms queued').to.equal(true);
    expect(playout.writtenMs()).to.equal(300);
    t.close();
  });

  it('clear() drops what is unsent at once: the writer and finish() are released, nothing more is sent', async () => {
    const { t, packets, at } = track(100);
    const playout = t.open();
    const write = playout.write(ms(1000), new AbortController().signal);
    at(0);
    at(60);
    const sent = packets.length;
    playout.clear();
    expect(await settled(write)).to.equal(true);
    expect(await settled(playout.finish())).to.equal(true);
    at(500);
    expect(packets).to.have.length(sent);
    expect(playout.sentMs()).to.equal(sent * 20);
    t.close();
  });

  it('plays responses one after another; the last partial frame is padded; finish() resolves when all was sent', async () => {
    const { t, packets, at } = track(1000);
    const first = t.open();
    const second = t.open();
    void first.write(ms(50, 7), new AbortController().signal);
    void second.write(ms(40, 9), new AbortController().signal);
    const firstDone = first.finish();
    const secondDone = second.finish();
    at(0);
    at(20);
    at(40);
    expect(await settled(firstDone), 'first: its padded last frame sent').to.equal(true);
    expect(packets.map((p) => p.payload[0])).to.deep.equal([7, 7, 7]);
    expect(await settled(secondDone)).to.equal(false);
    at(80);
    expect(await settled(secondDone)).to.equal(true);
    expect(packets.map((p) => p.payload[0])).to.deep.equal([7, 7, 7, 9, 9]);
    t.close();
  });

  it('after a stall it catches up at most 100 ms at once, then goes on in real time', async () => {
    const { t, packets, at } = track(10_000);
    const playout = t.open();
    void playout.write(ms(2000), new AbortController().signal);
    at(0);
    at(1000); // the event loop was blocked for a second
    // Frames worth the last ~100 ms leave at once; the rest of the audio follows in real time, later.
    expect(packets).to.have.length(1 + 6);
    at(1020);
    expect(packets).to.have.length(8);
    t.close();
  });

  it('after running dry it starts a new talk spurt: marker bit, timestamp advanced by the wall clock', async () => {
    const { t, packets, at } = track();
    const playout = t.open();
    void playout.write(ms(20), new AbortController().signal);
    at(0);
    at(500); // nothing queued: nothing sent
    expect(packets).to.have.length(1);
    void playout.write(ms(20), new AbortController().signal);
    at(1000);
    expect(packets).to.have.length(2);
    expect(packets[1]!.header.marker).to.equal(true);
    expect((packets[1]!.header.timestamp - packets[0]!.header.timestamp) >>> 0).to.equal(48_000);
    t.close();
  });
});
