// @test-tier slow: analyses speech clips for motion
import { expect } from 'chai';
import type { DrivingSpeech } from '@svc/core';
import { LandmarkAvatarRenderer } from '../src/landmark-avatar-renderer.js';
import { SpeechMotionCache, speechMotion } from '../src/speech-motion.js';
import { collectFrames, librivoxClip, samplePhoto } from './avatar-measures.js';

/** The first `seconds` of a LibriVox clip (real speech: the mouth moves). */
function speech(seconds: number): DrivingSpeech {
  const clip = librivoxClip('0870');
  return { audio: { samples: clip.samples.slice(0, Math.round(seconds * clip.sampleRate)), sampleRate: clip.sampleRate } };
}

describe('Speech motion: what the face takes from the speech alone, computable before the face', function () {
  this.timeout(120000);

  it('one loudness and one mouth shape per frame of the clip, the mouth moving with real speech', () => {
    const drive = speech(2.02);
    const motion = speechMotion(drive, 25);
    expect(motion.frameCount).to.equal(51); // 2.02 s at 25 fps: 50.5 -> 51 frames
    expect(motion.loud).to.have.length(51);
    expect(motion.mouth).to.have.length(51);
    const openings = motion.mouth.map((m) => m.open);
    expect(Math.max(...openings) - Math.min(...openings), 'the jaw opens and closes').to.be.above(0.1);
  });

  it('the cache computes a clip once: the same motion for the same clip, a fresh one for another clip', () => {
    const cache = new SpeechMotionCache(25);
    const drive = speech(1);
    const first = cache.of(drive);
    expect(cache.of(drive)).to.equal(first);
    const other = cache.of({ audio: { ...drive.audio } });
    expect(other).to.not.equal(first);
    expect(other).to.deep.equal(first);
  });

  it('LandmarkAvatarRenderer: the render of a clip analysed ahead moves as analysed, and its frames are those of a clip that was not', async () => {
    const renderer = new LandmarkAvatarRenderer({ renderThreads: 0, seed: 5 });
    try {
      const avatar = await renderer.prepare(samplePhoto(2), '640x640');
      const same = (a: { data: Uint8Array }[], b: { data: Uint8Array }[]): boolean[] =>
        a.map((f, k) => Buffer.from(f.data).equals(Buffer.from(b[k]!.data)));
      const plain = await collectFrames(avatar.render(speech(0.6)));
      const ahead = speech(0.6);
      renderer.analyseSpeech(ahead);
      // silenced after its analysis: a render that read the speech again would keep the mouth shut
      ahead.audio.samples.fill(0);
      const analysed = await collectFrames(avatar.render(ahead));
      expect(analysed).to.have.length(15);
      expect(same(analysed, plain), 'the motion analysed ahead, not recomputed').to.deep.equal(new Array(15).fill(true));
      const silent = await collectFrames(
        avatar.render({ audio: { samples: new Int16Array(ahead.audio.samples.length), sampleRate: ahead.audio.sampleRate } }),
      );
      expect(same(silent, plain).includes(false), 'speech and silence render differently').to.equal(true);
    } finally {
      await renderer.close();
    }
  });
});
