import { expect } from 'chai';
import { blinkClosure, blinkSchedule } from '../src/blinks.js';
import { headMotion } from '../src/head-motion.js';
import { visemeKeys } from '../src/viseme-track.js';
import { wordVisemes } from '../src/visemes.js';
import { audioMouthTrack, loudness } from '../src/audio-mouth-track.js';
import { speechFeatures } from '../src/speech-features.js';

describe('avatar motion: blink schedule, head motion, visemes, audio mouth track', () => {
  it('blinks 15-25 times a minute, 100-300 ms each, at irregular intervals, the same for the same seed', () => {
    for (const seed of [1, 2, 3, 99, 123456789]) {
      const blinks = blinkSchedule(300, seed);
      expect(blinks.length / 5, `seed ${seed}`).to.be.within(15, 25);
      for (const b of blinks) expect(b.duration).to.be.within(0.1, 0.3);
      const gaps = blinks.slice(1).map((b, i) => b.start - blinks[i]!.start);
      const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length);
      expect(sd, 'irregular').to.be.above(0.4);
      expect(Math.min(...gaps)).to.be.above(0.8);
      expect(blinkSchedule(300, seed)).to.deep.equal(blinks);
    }
    expect(blinkSchedule(300, 1)).to.not.deep.equal(blinkSchedule(300, 2));
    const b = blinkSchedule(60, 7)[0]!;
    expect(blinkClosure([b], b.start - 0.01)).to.equal(0);
    expect(blinkClosure([b], b.start + 0.4 * b.duration)).to.equal(1);
    expect(blinkClosure([b], b.start + b.duration + 0.01)).to.equal(0);
  });

  it('moves the head smoothly (no jitter), a little, more while speaking, starting from the photo', () => {
    const fps = 25;
    const loud = Array.from({ length: 750 }, (_, k) => (Math.floor(k / 50) % 2 === 0 ? 0.8 * Math.abs(Math.sin(k / 3)) : 0));
    const head = headMotion(loud, fps, 100, 42);
    expect(Math.abs(head[0]!.x) + Math.abs(head[0]!.y) + Math.abs(head[0]!.roll)).to.equal(0);
    for (let k = 2; k < head.length; k++) {
      const jerk = Math.hypot(head[k]!.x - 2 * head[k - 1]!.x + head[k - 2]!.x, head[k]!.y - 2 * head[k - 1]!.y + head[k - 2]!.y);
      expect(jerk, `frame ${k}`).to.be.below(0.15); // px per frame^2: no jumps
    }
    expect(Math.max(...head.map((h) => Math.hypot(h.x, h.y)))).to.be.within(0.5, 6); // of a 100 px eye distance
    expect(Math.max(...head.map((h) => Math.abs(h.roll)))).to.be.below(0.03); // under 2 degrees
    expect(headMotion(loud, fps, 100, 42)).to.deep.equal(head);
    // the nod follows the speech envelope: lower (y down) while speaking than in the pauses
    const meanY = (speaking: boolean): number => {
      const ys = head.filter((_, k) => k > 25 && (Math.floor(k / 50) % 2 === 0) === speaking).map((h) => h.y);
      return ys.reduce((a, b) => a + b, 0) / ys.length;
    };
    expect(meanY(true) - meanY(false)).to.be.above(0.8);
  });

  it('turns words into Oculus visemes (lips shut on m/b/p, rounded o/u, spread e/s) and keys them inside the word', () => {
    expect(wordVisemes('Mouth')).to.deep.equal(['PP', 'aa', 'U', 'TH']);
    expect(wordVisemes('see')).to.deep.equal(['SS', 'I']);
    expect(wordVisemes('food')).to.deep.equal(['FF', 'U', 'DD']);
    expect(wordVisemes('make')).to.deep.equal(['PP', 'aa', 'kk']);
    expect(wordVisemes('12')).to.include('E');
    const keys = visemeKeys([{ word: 'bob', start: 1, end: 1.3 }]);
    const inside = keys.filter((k) => k.t > 1 && k.t < 1.3);
    expect(inside).to.have.length(3);
    expect(inside[0]!.shape.open).to.equal(0);
    expect(inside[1]!.shape.round).to.be.above(0.5);
  });

  it('reads mouth shapes from audio: closed in silence, open on loud vowels, nearly closed and spread on hiss', () => {
    const rate = 16000;
    const samples = new Int16Array(rate * 3);
    // 1 s silence, 1 s of a loud low vowel-like tone (300 + 600 Hz), 1 s of noise (a hiss)
    for (let i = rate; i < 2 * rate; i++)
      samples[i] = Math.round(9000 * Math.sin((2 * Math.PI * 300 * i) / rate) + 5000 * Math.sin((2 * Math.PI * 600 * i) / rate));
    let seed = 1;
    for (let i = 2 * rate; i < 3 * rate; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const white = (seed / 0x7fffffff - 0.5) * 12000;
      samples[i] = Math.round(white - (i > 2 * rate ? samples[i - 1]! * 0.9 : 0)); // tilted towards high frequencies
    }
    const features = speechFeatures({ samples, sampleRate: rate }, 25, 75);
    const shapes = audioMouthTrack(features);
    const at = (from: number, to: number, key: 'open' | 'spread' | 'round'): number =>
      shapes.slice(from, to).reduce((a, s) => a + s[key], 0) / (to - from);
    expect(at(2, 23, 'open')).to.equal(0);
    expect(
      loudness(features)
        .slice(2, 23)
        .every((l) => l === 0),
    ).to.equal(true);
    expect(at(28, 48, 'open')).to.be.above(0.6);
    expect(at(28, 48, 'round')).to.be.above(0.3);
    expect(at(53, 73, 'open')).to.be.below(0.5 * at(28, 48, 'open'));
    expect(at(53, 73, 'spread')).to.be.above(at(28, 48, 'spread'));
  });
});
