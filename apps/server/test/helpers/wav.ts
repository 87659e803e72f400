import { wavHeader } from '@svc/adapters-runtime';

/** A mono s16 WAV file around PCM samples (the codec's own header writer). */
export function wavFile(samples: Int16Array, sampleRate: number): Buffer {
  return Buffer.concat([wavHeader(sampleRate, samples.byteLength), Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]);
}
