import type { WordTiming } from '@svc/core';
import { smoothShapes } from './audio-mouth-track.js';
import type { MouthShape } from './face-pose.js';
import { VISEME_SHAPES, isVowel, wordVisemes, type Viseme } from './visemes.js';

interface Key {
  t: number;
  shape: MouthShape;
}

/**
 * Mouth shapes from word timings: each word's visemes share its interval (vowels twice as long as
 * consonants), each held as a key at the centre of its slot; between keys the shape eases (a
 * cosine blend, which is what coarticulation looks like at 25 fps). Gaps between words longer than
 * 120 ms close the mouth. The visemes give the articulation (lips shut on p/b/m, nearly shut on
 * f/v, rounded on o/u/w, spread on e/i/s); the audio's own openness (audioOpen) gives the syllable
 * rhythm and stress, so the two are multiplied: a closed viseme closes a loud mouth, silence closes
 * any viseme, and the mouth stays in time with the sound even where word timings are approximate.
 */
export function visemeMouthTrack(words: readonly WordTiming[], audio: readonly MouthShape[], fps: number): MouthShape[] {
  const keys = visemeKeys(words);
  return smoothShapes(
    audio.map((a, k) => {
      const s = shapeAt(keys, (k + 0.5) / fps);
      const voiced = Math.min(1, a.open * 3);
      return {
        open: Math.min(1, a.open * (0.15 + 0.85 * s.open) * 1.45),
        spread: s.spread * voiced,
        round: s.round * voiced,
      };
    }),
  );
}

export function visemeKeys(words: readonly WordTiming[]): Key[] {
  const keys: Key[] = [{ t: 0, shape: VISEME_SHAPES.sil }];
  let previousEnd = 0;
  for (const word of [...words].sort((a, b) => a.start - b.start)) {
    if (!(word.end > word.start)) continue;
    if (word.start - previousEnd > 0.12) {
      keys.push({ t: previousEnd + 0.04, shape: VISEME_SHAPES.sil }, { t: word.start - 0.02, shape: VISEME_SHAPES.sil });
    }
    const visemes = wordVisemes(word.word);
    const weights = visemes.map((v: Viseme) => (isVowel(v) ? 2 : 1));
    const total = weights.reduce((a, b) => a + b, 0);
    let at = word.start;
    visemes.forEach((v, i) => {
      const span = ((word.end - word.start) * weights[i]!) / total;
      keys.push({ t: at + span / 2, shape: VISEME_SHAPES[v] });
      at += span;
    });
    previousEnd = Math.max(previousEnd, word.end);
  }
  keys.push({ t: previousEnd + 0.06, shape: VISEME_SHAPES.sil });
  return keys.sort((a, b) => a.t - b.t);
}

function shapeAt(keys: readonly Key[], t: number): MouthShape {
  if (t <= keys[0]!.t) return keys[0]!.shape;
  const last = keys[keys.length - 1]!;
  if (t >= last.t) return last.shape;
  let i = 1;
  while (keys[i]!.t < t) i++;
  const a = keys[i - 1]!;
  const b = keys[i]!;
  const x = (t - a.t) / Math.max(1e-6, b.t - a.t);
  const w = 0.5 - 0.5 * Math.cos(Math.PI * x);
  return {
    open: a.shape.open + (b.shape.open - a.shape.open) * w,
    spread: a.shape.spread + (b.shape.spread - a.shape.spread) * w,
    round: a.shape.round + (b.shape.round - a.shape.round) * w,
  };
}
