// @test-tier slow: renders a live avatar stream
import { expect } from 'chai';
import { audioMouthTrack } from '../src/audio-mouth-track.js';
import { LandmarkAvatarRenderer } from '../src/landmark-avatar-renderer.js';
import { LandmarkLiveAvatarRenderer } from '../src/live/landmark-live-avatar-renderer.js';
import { LivePoses } from '../src/live/live-poses.js';
import { speechFeatures } from '../src/speech-features.js';
import type { RgbImage } from '../src/rgb-image.js';
import { concatAudio, correlationAtLag, frameLandmarks, librivoxClip, mouthAperture, samplePhoto } from './avatar-measures.js';

const FPS = 25;

/** The clip's audio pushed as a transport schedules it: 100 ms chunks, each before its time. */
function schedule(poses: LivePoses, samples: Int16Array, rate: number, atMs: number): void {
  const chunk = rate / 10;
  for (let i = 0; i < samples.length; i += chunk) poses.speak(samples.subarray(i, i + chunk), rate, atMs + (i / rate) * 1000);
}

describe('Live avatar: a face posed frame by frame from the reply audio as a call schedules it', function () {
  this.timeout(240000);

  it('moves the mouth like the clip renderer does for the same speech (same model, frame by frame)', () => {
    const audio = concatAudio(16000, 0.4, librivoxClip('0880').samples, 0.6);
    const frames = Math.floor((audio.samples.length / 16000) * FPS);
    const clip = audioMouthTrack(speechFeatures(audio, FPS, frames)).map((s) => s.open);
    const poses = new LivePoses(FPS, 100, 1);
    schedule(poses, audio.samples, 16000, 5000);
    const live = Array.from({ length: frames }, (_, k) => poses.at(5000 + (k * 1000) / FPS).open);
    const r = correlationAtLag(live, clip, 0);
    expect(r, `r = ${r.toFixed(3)}`).to.be.above(0.95);
    // and open during the words, shut in the leading silence
    expect(Math.max(...live)).to.be.above(0.5);
    expect(Math.max(...live.slice(0, 8))).to.equal(0);
  });

  it('between replies: the mouth rests, the eyes blink 15-25 times a minute, the head sways a little', () => {
    const poses = new LivePoses(FPS, 100, 7);
    const frames = Array.from({ length: 60 * FPS }, (_, k) => poses.at(k * 40));
    expect(Math.max(...frames.map((p) => p.open))).to.equal(0);
    let blinks = 0;
    for (let k = 1; k < frames.length; k++) if (frames[k]!.blink >= 0.99 && frames[k - 1]!.blink < 0.99) blinks++;
    expect(blinks).to.be.within(15, 25);
    const sway = frames.map((p) => Math.hypot(p.headX, p.headY));
    expect(Math.max(...sway)).to.be.within(0.5, 4);
  });

  it('a cut (barge-in) puts the mouth to rest from that moment, mid-word, and later audio speaks again', () => {
    const speech = librivoxClip('0880').samples;
    const poses = new LivePoses(FPS, 100, 3);
    schedule(poses, speech, 16000, 1000);
    const before = Array.from({ length: 25 }, (_, k) => poses.at(1000 + k * 40).open);
    expect(Math.max(...before), 'speaking before the cut').to.be.above(0.3);
    poses.cut(2000);
    const after = Array.from({ length: 40 }, (_, k) => poses.at(2000 + k * 40).open);
    // the frame at the cut still closes from the one before (the mouth is smoothed over a frame)
    expect(after[0], 'closing at the cut').to.be.below(0.25);
    expect(Math.max(...after.slice(1)), 'at rest one frame (40 ms) after the cut').to.equal(0);
    schedule(poses, speech, 16000, 4000);
    const again = Array.from({ length: 25 }, (_, k) => poses.at(4000 + k * 40).open);
    expect(Math.max(...again), 'the next reply moves it again').to.be.above(0.3);
  });

  it('renders real frames (sample3): the lips part on a loud syllable, shut in silence; the render thread draws the same frames', async () => {
    const faces = new LandmarkAvatarRenderer({ renderThreads: 0 });
    const inline = new LandmarkLiveAvatarRenderer(faces, { renderThreads: 0 });
    const threaded = new LandmarkLiveAvatarRenderer(faces, { renderThreads: 1 });
    try {
      const speech = librivoxClip('0880');
      const a = await inline.open(samplePhoto(3), { size: '640x480' });
      const b = await threaded.open(samplePhoto(3), { size: '640x480' });
      expect([a.width, a.height, a.fps]).to.deep.equal([640, 480, 25]);
      for (const avatar of [a, b]) avatar.speak(speech.samples, 16000, 2000);
      // the loudest frame of the speech, and a frame of the silence before it
      const env = Array.from({ length: 60 }, (_, k) => {
        let s = 0;
        for (let i = k * 640; i < (k + 1) * 640; i++) s += speech.samples[i]! ** 2;
        return s;
      });
      const loudest = env.indexOf(Math.max(...env));
      const times = [0, 40, 2000 + loudest * 40];
      const shots: RgbImage[] = [];
      for (const t of times) {
        const fa = await a.frame(t);
        const fb = await b.frame(t);
        expect(Buffer.compare(Buffer.from(fa.rgb), Buffer.from(fb.rgb)), `frame at ${t} ms, thread vs inline`).to.equal(0);
        shots.push({ data: fa.rgb, width: fa.width, height: fa.height });
      }
      const lm = await frameLandmarks(shots);
      const rest = mouthAperture(lm[0]!);
      const open = mouthAperture(lm[2]!);
      expect(open - rest, `aperture ${rest.toFixed(3)} at rest, ${open.toFixed(3)} on the loudest syllable`).to.be.above(0.05);
      a.close();
      b.close();
    } finally {
      await threaded.close();
      await faces.close();
    }
  });
  it('counts the live avatars making frames, in 640x640 equivalents, for the capacity admission; an idle one drops out after a second', async () => {
    const faces = new LandmarkAvatarRenderer({ renderThreads: 0 });
    const live = new LandmarkLiveAvatarRenderer(faces, { renderThreads: 0 });
    try {
      const wide = await live.open(samplePhoto(3), { size: '640x480' });
      const square = await live.open(samplePhoto(3), { size: '640x640' });
      expect(live.liveLoad(), 'opened, no frame yet').to.equal(0);
      await wide.frame(0);
      expect(live.liveLoad()).to.equal(0.75);
      await square.frame(0);
      expect(live.liveLoad()).to.equal(1.75);
      await new Promise((r) => setTimeout(r, 700));
      await square.frame(40);
      await new Promise((r) => setTimeout(r, 400));
      expect(live.liveLoad(), 'the 640x480 one made no frame for 1.1 s').to.equal(1);
    } finally {
      await live.close();
      await faces.close();
    }
  });
});
