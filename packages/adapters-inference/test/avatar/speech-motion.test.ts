import { expect } from 'chai';
import type { DrivingSpeech } from '@svc/core';
import { LandmarkAvatarRenderer } from '../../src/avatar/landmark-avatar-renderer.js';
import { SpeechMotionCache, speechMotion } from '../../src/avatar/speech-motion.js';
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

  it('LandmarkAvatarRenderer: a clip analysed ahead renders the very frames of one that was not', async () => {
    const renderer = new LandmarkAvatarRenderer({ renderThreads: 0, seed: 5 });
    try {
      const avatar = await renderer.prepare(samplePhoto(2), '640x640');
      const ahead = speech(0.6);
      renderer.analyseSpeech(ahead);
      const analysed = await collectFrames(avatar.render(ahead));
      const plain = await collectFrames(avatar.render(speech(0.6)));
      expect(analysed).to.have.length(15);
      expect(analysed.map((f) => Buffer.from(f.data).equals(Buffer.from(plain[analysed.indexOf(f)]!.data)))).to.deep.equal(new Array(15).fill(true));
      // the frames differ from each other: the mouth and the head really moved
      expect(Buffer.from(analysed[0]!.data).equals(Buffer.from(analysed[10]!.data))).to.equal(false);
    } finally {
      await renderer.close();
    }
  });
});
