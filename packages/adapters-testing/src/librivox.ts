// Real human speech for the VAD and ASR tests (not a test file itself): five LibriVox sentences read by
// one adult (Debian's pocketsphinx-testdata, BSD-2, 16 kHz mono), installed by `npm run setup`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readWav } from '@svc/adapters-runtime';

export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';
export const LIBRIVOX_RATE = 16000;

export interface LibrivoxClip {
  id: string;
  samples: Int16Array;
  transcript: string;
}

/** All clips with their transcripts; fails (rather than skipping) when the test data is not installed. */
export function librivoxClips(): LibrivoxClip[] {
  const transcription = join(LIBRIVOX_DIR, 'transcription');
  if (!existsSync(transcription)) {
    throw new Error(`${transcription} is missing: run \`npm run setup\` (installs pocketsphinx-testdata).`);
  }
  return readFileSync(transcription, 'utf8')
    .trim()
    .split('\n')
    .map((line) => /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, transcript, id]) => {
      const wav = readWav(readFileSync(join(LIBRIVOX_DIR, `${id}.wav`)));
      if (wav.sampleRate !== LIBRIVOX_RATE) throw new Error(`${id}.wav is ${wav.sampleRate} Hz, expected 16 kHz.`);
      return { id: id!, samples: wav.samples, transcript: transcript! };
    });
}

/** A clip by the end of its id, e.g. `0880` ("he was not an ill disposed young man", 3.0 s). */
export function librivoxClip(suffix: string): LibrivoxClip {
  const clip = librivoxClips().find((c) => c.id.endsWith(suffix));
  if (!clip) throw new Error(`No LibriVox clip ending in ${suffix}.`);
  return clip;
}

/** The level of each whole 10 ms frame of `samples` (dBFS, from the frame's mean square). */
export function frameLevelsDbfs(samples: Int16Array, rate = LIBRIVOX_RATE): number[] {
  const window = rate / 100;
  const levels: number[] = [];
  for (let w = 0; (w + 1) * window <= samples.length; w++) {
    let energy = 0;
    for (let i = w * window; i < (w + 1) * window; i++) energy += samples[i]! * samples[i]!;
    levels.push(10 * Math.log10(energy / window / 32768 ** 2 + 1e-12));
  }
  return levels;
}

/**
 * Where the speech of a clip really starts and ends, independently of any VAD: the first and last
 * 10 ms window louder than -35 dBFS. The recordings' room tone sits at -45..-55 dBFS and the reader's
 * speech at -15..-30 dBFS, so the edges are clear-cut.
 */
export function speechEdgesMs(samples: Int16Array, rate = LIBRIVOX_RATE): { startMs: number; endMs: number } {
  const loud = frameLevelsDbfs(samples, rate).flatMap((dbfs, w) => (dbfs > -35 ? [w] : []));
  if (loud.length === 0) throw new Error('No speech above -35 dBFS.');
  return { startMs: loud[0]! * 10, endMs: (loud[loud.length - 1]! + 1) * 10 };
}

export function silenceMs(ms: number, rate = LIBRIVOX_RATE): Int16Array {
  return new Int16Array(Math.round((ms / 1000) * rate));
}

export function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Deterministic low-level white noise (a fixed-seed LCG, so a failure reproduces). */
export function whiteNoise(ms: number, amplitude: number, rate = LIBRIVOX_RATE, seed = 12345): Int16Array {
  const out = new Int16Array(Math.round((ms / 1000) * rate));
  let state = seed;
  for (let i = 0; i < out.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = Math.round((state / 2 ** 32 - 0.5) * 2 * amplitude);
  }
  return out;
}
