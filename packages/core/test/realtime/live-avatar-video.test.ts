import { expect } from 'chai';
import { LiveAvatarVideo, type EncodedVideoFrame, type LiveAvatar, type LiveVideoStream, type VideoFrame } from '../../src/index.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { flush } from '../fakes/index.js';

/** An avatar whose frames take `renderMs` of (fake) clock time and carry the moment they show. */
class TimedAvatar implements LiveAvatar {
  readonly width = 2;
  readonly height = 2;
  readonly fps = 25;
  asked: number[] = [];
  constructor(
    private readonly clock: FakeClock,
    private readonly renderMs: number,
  ) {}
  speak(): void {}
  cut(): void {}
  frame(atMs: number): Promise<VideoFrame> {
    this.asked.push(atMs);
    const rgb = new Uint8Array(12);
    new DataView(rgb.buffer).setFloat64(0, atMs);
    return new Promise((resolve) => this.clock.setTimer(this.renderMs, () => resolve({ rgb, width: 2, height: 2 })));
  }
  close(): void {}
}

/** An encoder that takes `encodeMs` and wraps the frame's bytes as its only NAL unit. */
class TimedEncoder implements LiveVideoStream {
  encoded = 0;
  constructor(
    private readonly clock: FakeClock,
    private readonly encodeMs: number,
  ) {}
  encode(frame: VideoFrame): Promise<EncodedVideoFrame> {
    this.encoded++;
    return new Promise((resolve) =>
      this.clock.setTimer(this.encodeMs, () => resolve({ nalUnits: [frame.rgb], keyframe: this.encoded === 1 })),
    );
  }
  close(): void {}
}

const shownAt = (f: EncodedVideoFrame): number => new DataView(f.nalUnits[0]!.buffer).getFloat64(0);

async function run(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t++) {
    clock.advance(1);
    await flush(2);
  }
}

describe('LiveAvatarVideo: the frames of a live avatar on the media clock', () => {
  it('sends frame n at start + n x 40 ms, showing that moment, made leadMs ahead', async () => {
    const clock = new FakeClock(1000);
    const avatar = new TimedAvatar(clock, 15);
    const sent: { at: number; when: number; shows: number }[] = [];
    const video = new LiveAvatarVideo(
      avatar,
      new TimedEncoder(clock, 5),
      { send: (f, at) => sent.push({ at, when: clock.now(), shows: shownAt(f) }) },
      { clock, leadMs: 100 },
    );
    video.start();
    await run(clock, 1100);
    video.close();
    expect(sent.length).to.be.within(24, 26);
    sent.forEach((s, n) => {
      expect(s.at).to.equal(1100 + n * 40);
      expect(s.when, `frame ${n} leaves at its time`).to.equal(s.at);
      expect(s.shows, `frame ${n} shows its own moment`).to.equal(s.at);
    });
    expect(video.stats.framesSkipped).to.equal(0);
    expect(video.stats.framesLate).to.equal(0);
    expect(video.stats.renderMs.every((ms) => ms === 15)).to.equal(true);
  });

  it('a renderer slower than the frame rate skips frames before rendering them: the picture stays on time at a lower rate', async () => {
    const clock = new FakeClock(0);
    const avatar = new TimedAvatar(clock, 90);
    const encoder = new TimedEncoder(clock, 5);
    const sent: { at: number; when: number; shows: number }[] = [];
    const video = new LiveAvatarVideo(
      avatar,
      encoder,
      { send: (f, at) => sent.push({ at, when: clock.now(), shows: shownAt(f) }) },
      { clock, leadMs: 120 },
    );
    video.start();
    await run(clock, 2000);
    video.close();
    // ~95 ms a frame: about 10 of the 25 a second
    expect(sent.length).to.be.within(15, 23);
    expect(video.stats.framesSkipped).to.be.at.least(20);
    for (const s of sent) {
      expect(s.shows).to.equal(s.at);
      expect(s.when - s.at, 'never sent more than half a frame late').to.be.at.most(20);
    }
    // nothing is dropped after encoding (the encoder's reference chain stays whole): at most the
    // frame waiting for its time when the video closed was encoded and not sent
    expect(encoder.encoded - sent.length).to.be.within(0, 1);
    for (let i = 1; i < sent.length; i++) expect(sent[i]!.at).to.be.above(sent[i - 1]!.at);
  });

  it('renders the next frame while the encoder takes this one: 30 ms of render and 25 ms of encode (55 ms, more than a frame) still give every frame, on time', async () => {
    const clock = new FakeClock(0);
    const encoder = new TimedEncoder(clock, 25);
    const sent: { at: number; when: number; shows: number }[] = [];
    const video = new LiveAvatarVideo(
      new TimedAvatar(clock, 30),
      encoder,
      { send: (f, at) => sent.push({ at, when: clock.now(), shows: shownAt(f) }) },
      { clock, leadMs: 160 },
    );
    video.start();
    await run(clock, 2160);
    video.close();
    // frames 0..50 are due by 2160 (the first is shown at 160): a serial render + encode made ~18 a second
    expect(sent.length).to.be.within(50, 51);
    expect(video.stats.framesSkipped, 'no frame skipped').to.equal(0);
    expect(video.stats.framesLate, 'none late').to.equal(0);
    sent.forEach((s, n) => {
      expect(s.at).to.equal(160 + n * 40);
      expect(s.when, `frame ${n} leaves at its time`).to.equal(s.at);
      expect(s.shows).to.equal(s.at);
    });
    expect(video.stats.sendLagMs.every((ms) => ms === 0)).to.equal(true);
  });

  it('one stalled render (300 ms) costs the frames its delay covers, then the full rate returns', async () => {
    const clock = new FakeClock(0);
    let stallAt = -1;
    const avatar = new TimedAvatar(clock, 20);
    const frame = avatar.frame.bind(avatar);
    avatar.frame = (atMs: number) => {
      if (atMs === 1000) {
        stallAt = clock.now();
        avatar.asked.push(atMs);
        return new Promise((resolve) => clock.setTimer(300, () => resolve({ rgb: new Uint8Array(12), width: 2, height: 2 })));
      }
      return frame(atMs);
    };
    const sent: number[] = [];
    const video = new LiveAvatarVideo(avatar, new TimedEncoder(clock, 10), { send: (_f, at) => sent.push(at) }, { clock, leadMs: 160 });
    video.start();
    await run(clock, 3000);
    video.close();
    expect(stallAt).to.be.above(0);
    // the stalled frame is ready at ~1140 + 10: the frames due before ~1150 + one frame's work are lost
    expect(video.stats.framesSkipped, 'frames skipped around the stall').to.be.within(3, 5);
    const after = sent.filter((at) => at >= 1400);
    expect(after.length, 'every frame from 1400 on').to.equal(Math.round((sent.at(-1)! - 1400) / 40) + 1);
  });

  it('close() stops the frames', async () => {
    const clock = new FakeClock(0);
    const sent: number[] = [];
    const video = new LiveAvatarVideo(
      new TimedAvatar(clock, 10),
      new TimedEncoder(clock, 2),
      { send: (_f, at) => sent.push(at) },
      { clock, leadMs: 60 },
    );
    video.start();
    await run(clock, 300);
    video.close();
    const count = sent.length;
    expect(count).to.be.at.least(5);
    await run(clock, 300);
    expect(sent.length).to.equal(count);
  });
});
