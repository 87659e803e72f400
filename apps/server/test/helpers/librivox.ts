import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** pocketsphinx-testdata's five read sentences (16 kHz mono WAV), installed by scripts/setup-system.sh. */
export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';

/** Real human speech (pocketsphinx-testdata, 16 kHz mono s16): the test browsers' fake microphone, a call's caller. */
export const MIC_CLIP = `${LIBRIVOX_DIR}/sense_and_sensibility_01_austen_64kb-0880.wav`;
export const MIC_CLIP_WORDS = 'he was not an ill disposed young man';

export interface LibrivoxSentence {
  id: string;
  /** The whole file (a 44-byte header, then s16 samples). */
  wav: Buffer;
  samples: Int16Array;
  /** The reference transcript, lower case. */
  words: string;
  seconds: number;
}

/** The sentences and their reference transcripts (the data set's `transcription` file). */
export function librivoxSentences(): LibrivoxSentence[] {
  return readFileSync(join(LIBRIVOX_DIR, 'transcription'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim())!)
    .map(([, words, id]) => {
      const wav = readFileSync(join(LIBRIVOX_DIR, `${id}.wav`));
      const data = wav.subarray(wav.indexOf('data') + 8);
      const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
      return { id: id!, wav, samples, words: words!, seconds: samples.length / 16000 };
    });
}
