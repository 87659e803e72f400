import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { concatPcm } from '@svc/core';

/**
 * Short human utterances cut from pocketsphinx-testdata's recordings (16 kHz mono s16, installed
 * by scripts/setup-system.sh): what a listener says over a reply, in a person's voice and at a
 * person's length, not the service's own voice. The cut points are word boundaries from
 * pocketsphinx's word timings (`pocketsphinx_continuous -time yes`) checked against the energy
 * (20 ms frames); docs/realtime.md lists them.
 */
export const TESTDATA_DIR = '/usr/share/pocketsphinx/test/data';
export const RATE = 16000;

/** The samples of a raw (headerless) or WAV recording of the test data. */
export function recording(path: string): Int16Array {
  let bytes = readFileSync(join(TESTDATA_DIR, path));
  if (path.endsWith('.wav')) bytes = bytes.subarray(bytes.indexOf('data') + 8);
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~1)));
}

/** `from`..`to` seconds of a recording, with 10 ms fades so the cut makes no click. */
export function cut(samples: Int16Array, from: number, to: number): Int16Array {
  const out = samples.slice(Math.round(from * RATE), Math.round(to * RATE));
  const fade = Math.min(RATE / 100, out.length >> 1);
  for (let i = 0; i < fade; i++) {
    out[i] = Math.round((out[i]! * i) / fade);
    out[out.length - 1 - i] = Math.round((out[out.length - 1 - i]! * i) / fade);
  }
  return out;
}

/**
 * A soft "oh" (250 ms): numbers.raw says "thirty three four oh six ninety two"; pocketsphinx
 * times the "oh" at 1.60-1.92 s (it hears "or"); the cut starts at 1.70 s, past the "r" of "four"
 * that runs into it, and ends in the dip before "six". At the recording's level (-24 dBFS rms) Silero
 * hears this vowel at only 9 of 11 alignments on its 32 ms frames (a cut from 1.66 s: 7 of 14); said
 * softer, as a backchannel is (x0.35, -33 dBFS rms), at all 32 alignments tried: the tests need it heard
 * every time, since an "oh" the detector misses never pauses the reply and tests nothing.
 */
export const recordedOh = (): Int16Array => cut(recording('numbers.raw'), 1.7, 1.95).map((x) => Math.round(x * 0.35));

/**
 * A LibriVox reader's "not" (330 ms), a one-word false start: "he was not an ill disposed young
 * man", "not" at 0.55-0.97 s, cut at 0.55-0.88 s (the energy falls 27 dB there).
 */
export const recordedNot = (): Int16Array => cut(recording('librivox/sense_and_sensibility_01_austen_64kb-0880.wav'), 0.55, 0.88);

/**
 * A laugh with no words in it, made of a real voice: three "ha"s, each a LibriVox reader's vowel
 * (the "o" of "not", 0.62-0.74 s) played backwards, with a breathy attack and a fast decay, 90 ms
 * apart (~570 ms). A voice-activity detector takes it for speech (it is a human voice); a
 * recognizer finds no word of the language in a reversed vowel.
 */
export function recordedLaugh(): Int16Array {
  const vowel = cut(recording('librivox/sense_and_sensibility_01_austen_64kb-0880.wav'), 0.62, 0.74).reverse();
  const gap = new Int16Array((RATE * 90) / 1000);
  const parts: Int16Array[] = [];
  let seed = 7;
  for (const loudness of [1, 0.8, 0.6]) {
    const ha = new Int16Array(vowel.length);
    for (let i = 0; i < ha.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const breath = i < RATE * 0.03 ? ((seed / 0x7fffffff) * 2 - 1) * 3000 * (1 - i / (RATE * 0.03)) : 0;
      const decay = Math.exp(-Math.max(0, i - RATE * 0.05) / (RATE * 0.04));
      ha[i] = Math.max(-32768, Math.min(32767, Math.round((vowel[i]! * decay + breath) * loudness)));
    }
    parts.push(ha, gap);
  }
  return concatPcm(parts);
}

/** Utterances and silences one after another. */
export const concat = (parts: Int16Array[]): Int16Array => concatPcm(parts);

export const silence = (ms: number): Int16Array => new Int16Array(Math.round((RATE * ms) / 1000));
