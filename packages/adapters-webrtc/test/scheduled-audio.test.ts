import { expect } from 'chai';
import type { OpusCodec } from '@svc/core';
import type { RtpPacket } from 'werift';
import { RtpAudioTrack, type ScheduledAudioListener } from '../src/rtp-audio-track.js';

const FRAME_CODEC = {
  createEncoder: () => ({ encode: (pcm: Int16Array) => [new Uint8Array([pcm[0]! & 0xff])], flush: () => [] }),
} as unknown as OpusCodec;

/** A track on a test clock with a listener that records what it is told. */
function setUp(startDelayMs: number) {
  let now = 1000;
  const packets: { at: number; packet: RtpPacket }[] = [];
  const t = new RtpAudioTrack({ sendRtp: (p) => packets.push({ at: now, packet: p }) }, 111, {
    opus: FRAME_CODEC,
    leadMs: 10_000,
    now: () => now,
  });
  const told: { speak: Array<{ atMs: number; samples: number; first: number }>; cut: number[] } = { speak: [], cut: [] };
  const listener: ScheduledAudioListener = {
    speak: (samples, rate, atMs) => {
      expect(rate).to.equal(48000);
      told.speak.push({ atMs, samples: samples.length, first: samples[0]! });
    },
    cut: (atMs) => told.cut.push(atMs),
  };
  t.listen(listener, startDelayMs);
  return {
    t,
    packets,
    told,
    /** Moves the clock, running the pacing timer every 10 ms on the way. */
    until(ms: number) {
      while (now < ms) {
        now = Math.min(ms, now + 10);
        t.tick();
      }
    },
    get now() {
      return now;
    },
  };
}

/** `ms` of audio whose every sample is `value` (the packets carry the first sample: the audio can be followed). */
const audio = (ms: number, value: number) => new Int16Array(ms * 48).fill(value);
const signal = new AbortController().signal;

/** A track with a 300 ms reply (value 3, finished) and a 100 ms one (value 8) queued behind it. */
function twoReplies() {
  const s = setUp(160);
  const first = s.t.open();
  void first.write(audio(300, 3), signal);
  void first.finish();
  const second = s.t.open();
  void second.write(audio(100, 8), signal);
  return { s, first, second };
}

describe('RtpAudioTrack with a live avatar listening: every sample scheduled before it is sent', () => {
  it('starts a talk spurt the start delay after its first samples and tells the listener when each sample plays, which is when it is sent', () => {
    const s = setUp(160);
    const playout = s.t.open();
    void playout.write(audio(100, 7), signal);
    void playout.write(audio(60, 9), signal);
    expect(s.told.speak).to.deep.equal([
      { atMs: 1160, samples: 4800, first: 7 },
      { atMs: 1260, samples: 2880, first: 9 },
    ]);
    s.until(1150);
    expect(s.packets, 'nothing leaves during the start delay').to.have.length(0);
    s.until(1400);
    // the first packet of each chunk leaves at the moment the listener was told
    const sentAt = (value: number) => s.packets.find((p) => p.packet.payload[0] === value)!.at;
    expect(sentAt(7)).to.equal(1160);
    expect(sentAt(9)).to.equal(1260);
    expect(s.packets).to.have.length(8);
    expect(s.packets[0]!.packet.header.marker).to.equal(true);
    s.t.close();
  });

  it('a paused playout (a barge-in being judged) cuts the listener where the wire stopped; the resume schedules what is left from then on', () => {
    const s = setUp(160);
    const playout = s.t.open();
    void playout.write(audio(300, 3), signal);
    s.until(1160 + 100);
    const sent = s.packets.length;
    playout.pause();
    expect(s.told.cut, 'the mouth stops where the audio did').to.deep.equal([1160 + sent * 20]);
    void playout.write(audio(40, 4), signal);
    expect(s.told.speak, 'samples written while paused are not shown yet').to.have.length(1);
    s.until(1800);
    expect(s.packets, 'nothing leaves while paused').to.have.length(sent);
    playout.resume();
    // what was not sent of the first write, then the paused write, from the resume plus the start delay
    const left = 300 - sent * 20;
    expect(s.told.speak.slice(1)).to.deep.equal([
      { atMs: 1960, samples: left * 48, first: 3 },
      { atMs: 1960 + left, samples: 40 * 48, first: 4 },
    ]);
    s.until(1960 + left + 40 + 20);
    expect(s.packets.length, 'everything is sent after the resume').to.equal(sent + (left + 40) / 20);
    expect(s.packets.find((p) => p.packet.payload[0] === 4)!.at).to.equal(1960 + left);
    s.t.close();
  });

  it('a pause while a second playout waits behind the first: the second is told after the rest of the first, from the resume, where the wire sends it', () => {
    const { s, first, second } = twoReplies();
    expect(s.told.speak.map((x) => x.atMs)).to.deep.equal([1160, 1460]);
    s.until(1160 + 100);
    const sent = s.packets.length;
    first.pause();
    expect(s.told.cut, 'the mouth stops where the audio did').to.deep.equal([1160 + sent * 20]);
    const toldBefore = s.told.speak.length;
    void second.write(audio(40, 9), signal);
    expect(s.told.speak, 'nothing behind a paused playout is shown yet').to.have.length(toldBefore);
    s.until(1800);
    expect(s.packets, 'nothing leaves while paused').to.have.length(sent);
    first.resume();
    const left = 300 - sent * 20;
    expect(s.told.speak.slice(toldBefore)).to.deep.equal([
      { atMs: 1960, samples: left * 48, first: 3 },
      { atMs: 1960 + left, samples: 100 * 48, first: 8 },
      { atMs: 1960 + left + 100, samples: 40 * 48, first: 9 },
    ]);
    s.until(1960 + left + 140 + 20);
    const sentAt = (value: number) => s.packets.find((p) => p.packet.payload[0] === value)!.at;
    expect(sentAt(8), 'the second playout leaves when the listener was told').to.equal(1960 + left);
    expect(sentAt(9)).to.equal(1960 + left + 100);
    s.t.close();
  });

  it('clearing the playout being sent while a second waits: the second is told again, in a spurt of its own, where the wire sends it', () => {
    const { s, first, second } = twoReplies();
    s.until(1160 + 100);
    const sent = s.packets.length;
    first.clear();
    expect(s.told.cut).to.deep.equal([1160 + sent * 20]);
    expect(s.told.speak.at(-1), 'the second reply from now plus the start delay').to.deep.equal({
      atMs: 1260 + 160,
      samples: 4800,
      first: 8,
    });
    s.until(1700);
    expect(s.packets.find((p) => p.packet.payload[0] === 8)!.at).to.equal(1420);
    s.t.close();
  });

  it('pausing a playout that waits behind the one being sent leaves the sending one shown and on time', () => {
    const { s, first, second } = twoReplies();
    s.until(1160 + 100);
    second.pause();
    // the first's unsent audio is told again where it was: the mouth goes on with it
    const cut = s.told.cut.at(-1)!;
    const retold = s.told.speak.filter((x) => x.first === 3).at(-1)!;
    expect(retold.atMs, 'the rest of the first where the wire sends it').to.equal(cut);
    expect(retold.atMs + retold.samples / 48).to.equal(1460);
    s.until(1500);
    expect(s.packets.filter((p) => p.packet.payload[0] === 3)).to.have.length(15);
    expect(
      s.packets.filter((p) => p.packet.payload[0] === 8),
      'the paused second waits',
    ).to.have.length(0);
    s.t.close();
  });

  it('a cleared playout (barge-in) cuts the listener where the wire stopped, and the next reply gets a new spurt', () => {
    const s = setUp(160);
    const first = s.t.open();
    void first.write(audio(1000, 3), signal);
    s.until(1160 + 300);
    const sent = s.packets.length;
    first.clear();
    expect(s.told.cut).to.deep.equal([1160 + sent * 20]);
    expect(sent * 20, 'what was sent matches the time passed').to.be.within(300, 320);
    s.until(2000);
    expect(s.packets).to.have.length(sent);
    const second = s.t.open();
    void second.write(audio(40, 5), signal);
    expect(s.told.speak.at(-1)).to.deep.equal({ atMs: 2160, samples: 1920, first: 5 });
    s.until(2300);
    expect(s.packets.find((p) => p.packet.payload[0] === 5)!.at).to.equal(2160);
    s.t.close();
  });

  it('after the audio ran dry (synthesis behind) the next samples start a new spurt instead of being scheduled in the past', () => {
    const s = setUp(160);
    const playout = s.t.open();
    void playout.write(audio(40, 1), signal);
    s.until(1500);
    void playout.write(audio(40, 2), signal);
    expect(s.told.speak.map((x) => x.atMs)).to.deep.equal([1160, 1660]);
    s.until(1800);
    expect(s.packets.find((p) => p.packet.payload[0] === 2)!.at).to.equal(1660);
    s.t.close();
  });

  it('without a listener nothing is delayed (voice-only calls keep their latency)', () => {
    const s = setUp(160);
    s.t.listen(null);
    const playout = s.t.open();
    void playout.write(audio(40, 4), signal);
    s.until(1010);
    expect(s.packets[0]!.at, 'the first packet leaves as its samples are written, not at the next tick').to.equal(1000);
    s.t.close();
  });
});
