import { expect } from 'chai';
import { FramePacer } from '../../src/realtime/audio/frame-pacer.js';

/** A test clock whose timers run as `advance` passes their due time (the pacer's tick runs on them). */
function fakeClock(start = 1000) {
  let now = start;
  let timers: Array<{ at: number; fn: () => void }> = [];
  return {
    now: () => now,
    setTimer(ms: number, fn: () => void) {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => (timers = timers.filter((t) => t !== timer));
    },
    /** Moves the clock to `to`, running every timer due on the way at its due time. */
    advance(to: number) {
      for (;;) {
        const next = timers.filter((t) => t.at <= to).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        timers = timers.filter((t) => t !== next);
        now = Math.max(now, next.at);
        next.fn();
      }
      now = to;
    },
    /** Moves the clock without running its timers (a blocked event loop). */
    jump(to: number) {
      now = to;
    },
    get pending() {
      return timers.length;
    },
  };
}

/** A pacer of 20 ms frames at 8 kHz (160 samples) recording what leaves and when. */
function setUp(leadMs = 200) {
  const clock = fakeClock();
  const sent: Array<{ at: number; marker: boolean; dueMs: number; first: number }> = [];
  const pacer = new FramePacer({
    format: { sampleRate: 8000, frameSamples: 160 },
    leadSamples: leadMs * 8,
    clock,
    send: (frame, marker, dueMs) => sent.push({ at: clock.now(), marker, dueMs, first: frame[0]! }),
  });
  return { clock, sent, pacer };
}

const audio = (ms: number, value = 1) => new Int16Array(ms * 8).fill(value);
const signal = new AbortController().signal;

describe('FramePacer: one real-time pacer for the media tracks (WebRTC, SIP)', () => {
  it("sends a reply's first frame the moment it is written, between two ticks, not at the next tick", () => {
    const { clock, sent, pacer } = setUp();
    clock.advance(1003);
    const playout = pacer.open();
    clock.advance(1007); // the reply's first samples come 7 ms after the track's tick started
    void playout.write(audio(200), signal);
    expect(sent, 'the first frame left within the write').to.have.length(1);
    expect(sent[0]).to.include({ at: 1007, marker: true, dueMs: 1007 });
    clock.advance(1047);
    expect(sent.map((s) => s.at)).to.deep.equal([1007, 1027, 1047]);
    pacer.close();
  });

  it('a reply streamed in small chunks: its first packet leaves when its first whole frame is written (within 30 ms of its first samples)', () => {
    const { clock, sent, pacer } = setUp();
    const playout = pacer.open();
    // a synthesizer's chunks of 7 ms, each 3 ms apart (faster than real time), starting off the tick grid
    let t = 1004;
    const firstSamplesAt = t;
    for (let i = 0; i < 10; i++, t += 3) {
      clock.advance(t);
      void playout.write(audio(7, i + 1), signal);
    }
    // the third chunk (written at 1010) completes the first 20 ms frame
    expect(sent[0]!.at).to.equal(1010);
    expect(sent[0]!.at - firstSamplesAt).to.be.at.most(30);
    expect(sent[0]!.first).to.equal(1);
    pacer.close();
  });

  it('frames follow every 20 ms from the spurt start; after running dry the next samples start a new spurt at once', () => {
    const { clock, sent, pacer } = setUp();
    const playout = pacer.open();
    void playout.write(audio(40, 1), signal);
    clock.advance(1100);
    expect(sent.map((s) => [s.at, s.marker])).to.deep.equal([
      [1000, true],
      [1020, false],
    ]);
    clock.advance(1133);
    void playout.write(audio(20, 2), signal);
    expect(sent.at(-1)).to.deep.include({ at: 1133, marker: true, first: 2 });
    pacer.close();
  });

  it('a start delay (a live avatar posing its first frames) holds the first frame that long, then paces from there', () => {
    const { clock, sent, pacer } = setUp();
    pacer.startDelayMs = 160;
    const playout = pacer.open();
    void playout.write(audio(60), signal);
    expect(sent, 'nothing during the delay').to.have.length(0);
    pacer.startSpurt(clock.now()); // the track starts the spurt when it schedules the samples
    clock.advance(1159);
    expect(sent).to.have.length(0);
    clock.advance(1200);
    expect(sent.map((s) => s.at)).to.deep.equal([1160, 1180, 1200]);
    pacer.close();
  });

  it('plays replies one after another, pads a finished reply`s last frame, and stops its timer when all is sent', async () => {
    const { clock, sent, pacer } = setUp();
    const first = pacer.open();
    const second = pacer.open();
    void first.write(audio(30, 7), signal);
    void second.write(audio(20, 9), signal);
    const done = Promise.all([first.finish(), second.finish()]);
    clock.advance(1100);
    await done;
    expect(sent.map((s) => s.first)).to.deep.equal([7, 7, 9]);
    expect(first.sentMs()).to.equal(30);
    expect(clock.pending, 'no timer left behind').to.equal(0);
    pacer.close();
  });

  it('after a stall it sends at most 100 ms at once and shifts the rest later', () => {
    const { clock, sent, pacer } = setUp(10_000);
    const playout = pacer.open();
    void playout.write(audio(1000), signal);
    expect(sent).to.have.length(1);
    clock.jump(2000); // the event loop was blocked for a second: its timer runs late
    clock.advance(2000);
    expect(sent.filter((s) => s.at === 2000)).to.have.length(6);
    clock.advance(2020);
    expect(sent.filter((s) => s.at === 2020)).to.have.length(1);
    pacer.close();
  });

  it('a paused playout sends nothing; the resume goes on as a new spurt', () => {
    const { clock, sent, pacer } = setUp();
    const playout = pacer.open();
    void playout.write(audio(100, 3), signal);
    clock.advance(1030);
    const before = sent.length;
    playout.pause();
    clock.advance(1200);
    expect(sent).to.have.length(before);
    playout.resume();
    clock.advance(1210);
    expect(sent[before]).to.deep.include({ at: 1210, marker: true });
    pacer.close();
  });

  it('a closed pacer hands out playouts that are already cleared and sends nothing', async () => {
    const { clock, sent, pacer } = setUp();
    pacer.close();
    const playout = pacer.open();
    await playout.write(audio(100), signal);
    clock.advance(1500);
    expect(sent).to.have.length(0);
    expect(playout.done).to.equal(true);
  });
});
