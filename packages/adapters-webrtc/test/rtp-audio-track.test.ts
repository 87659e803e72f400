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

  it('pause() stops sending at the next frame and holds the writer; resume() goes on from the next unsent sample as a new talk spurt', async () => {
    const { t, packets, at } = track(100);
    const playout = t.open();
    // Each 20 ms frame carries its index as its first sample, to follow the audio through the pause.
    const audio = new Int16Array(1000 * 48);
    for (let f = 0; f < 50; f++) audio.fill(f + 1, f * 960, (f + 1) * 960);
    const write = playout.write(audio, new AbortController().signal);
    at(0);
    at(60);
    const sent = packets.length;
    playout.pause();
    at(70);
    at(500);
    expect(packets, 'nothing sent while paused').to.have.length(sent);
    expect(playout.sentMs()).to.equal(sent * 20);
    expect(await settled(write), 'the writer waits: the queue is over the lead').to.equal(false);
    playout.resume();
    at(510);
    expect(packets).to.have.length(sent + 1);
    const next = packets[sent]!;
    expect(next.payload[0], 'the first unsent frame, none skipped').to.equal(sent + 1);
    expect(next.header.marker, 'a new talk spurt').to.equal(true);
    for (let now = 520; now <= 1500; now += 10) at(now);
    expect(packets.map((p) => p.payload[0])).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await settled(write)).to.equal(true);
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
    void playout.write(ms(20), new AbortController().signal); // written at 500: its spurt starts then
    at(500);
    expect(packets).to.have.length(2);
    expect(packets[1]!.header.marker).to.equal(true);
    expect((packets[1]!.header.timestamp - packets[0]!.header.timestamp) >>> 0).to.equal(24_000);
    t.close();
  });
});

describe('RtpAudioTrack: a reply starts on the wire with its first samples', () => {
  it('sends the first packet while the first 20 ms are written, off the tick grid, and records that delay per reply', () => {
    const { t, packets, at } = track(1000);
    at(3);
    const playout = t.open();
    at(9); // the synthesizer's first samples come between two ticks, in chunks of 5 ms
    for (let i = 0; i < 4; i++) void playout.write(ms(5), new AbortController().signal);
    expect(packets, 'the first whole frame left at once').to.have.length(1);
    expect(packets[0]!.header.marker).to.equal(true);
    expect(t.firstPacketDelaysMs).to.deep.equal([0]);
    t.close();
  });
});
