/**
 * Audio as it moves through the core: mono signed 16-bit PCM at a known sample rate.
 * Bytes (encoded files, PCM little-endian wire data) are Uint8Array so the core needs no Buffer.
 */
export interface PcmAudio {
  samples: Int16Array;
  sampleRate: number;
}

/** The REST `response_format` values. */
export const RESPONSE_FORMATS = ['mp3', 'opus', 'pcm', 'wav', 'aac', 'flac'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

export const CONTENT_TYPES: Record<ResponseFormat, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg; codecs=opus',
  pcm: 'audio/pcm',
  wav: 'audio/wav',
  aac: 'audio/aac',
  flac: 'audio/flac',
};

/** Sample rate of speech the service produces (REST `pcm` is 24 kHz, 16-bit, mono, little-endian). */
export const OUTPUT_SAMPLE_RATE = 24000;

export function pcmToBytes(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  return out;
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The samples as little-endian PCM16 bytes without copying them where the host is little-endian
 * (every platform Node runs on): a view of the same memory, so it must be read before the samples
 * change. A copy on a big-endian host.
 */
export function pcmBytesView(samples: Int16Array): Uint8Array {
  return LITTLE_ENDIAN_HOST ? new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength) : pcmToBytes(samples);
}

export function bytesToPcm(bytes: Uint8Array): Int16Array {
  const n = Math.floor(bytes.length / 2);
  const out = new Int16Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, n * 2);
  for (let i = 0; i < n; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

export function silence(ms: number, sampleRate: number): Int16Array {
  return new Int16Array(Math.round((ms / 1000) * sampleRate));
}

export function durationSeconds(audio: PcmAudio): number {
  return audio.samples.length / audio.sampleRate;
}

/** Video frames that show this audio at `fps`: one per 1/fps s, the last one partial (the renderer and the encoder must agree). */
export function videoFrameCount(audio: PcmAudio, fps: number): number {
  return Math.ceil(durationSeconds(audio) * fps - 1e-9);
}

/** Root-mean-square level in [0, 1] (1 = full-scale square wave). */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / samples.length) / 32768;
}

export function concatPcm(parts: Int16Array[]): Int16Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Int16Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
