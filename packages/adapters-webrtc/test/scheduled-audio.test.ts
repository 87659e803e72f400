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
  const t = new RtpAudioTrack({ sendRtp: (p) => packets.push({ at: now, packet: p }) }, 111, { opus: FRAME_CODEC, leadMs: 10_000, now: () => now });
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
    expect(s.packets[0]!.at).to.equal(1010);
    s.t.close();
  });
});
