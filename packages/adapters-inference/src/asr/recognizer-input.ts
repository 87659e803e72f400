import type { PcmAudio } from '@svc/core';
import { pcmToBytes } from '@svc/core';
import { wavHeader } from '../codec/wav-writer.js';
import type { SpeexResampler } from '../speech/speex-resampler.js';

/** The only format pocketsphinx's en-us acoustic model takes. */
export const RECOGNIZER_SAMPLE_RATE = 16000;

/** The audio as the WAV file pocketsphinx reads: 16 kHz mono s16 little-endian. */
export function recognizerWav(audio: PcmAudio, resampler: SpeexResampler): Uint8Array {
  const samples = resampler.resample(audio.samples, audio.sampleRate, RECOGNIZER_SAMPLE_RATE);
  const data = pcmToBytes(samples);
  const file = new Uint8Array(44 + data.length);
  file.set(wavHeader(RECOGNIZER_SAMPLE_RATE, data.length));
  file.set(data, 44);
  return file;
}
