import type { AudioContainer } from './detect-audio-format.js';

/** Sample rates a real recording has (telephony to high-resolution studio audio). */
export const PLAUSIBLE_SAMPLE_RATES = { min: 8000, max: 192_000 } as const;
/**
 * Most channels accepted. Speech is mono or stereo; 7.1.4 has 12, third-order ambisonics 16.
 * More costs decoding work for nothing a voice service uses.
 */
export const MAX_CHANNELS = 32;

/** What the container's header declares (null fields: not declared where it was looked for). */
export interface DeclaredAudio {
  sampleRate: number | null;
  channels: number | null;
}

/**
 * Why the header of an audio file is implausible, or null when it is plausible or the container
 * is not one whose header is read here. Cheap (a few dozen bytes, no decoding): a WAV that
 * declares a 1 Hz rate holds 55 hours of audio in 200 KB, and ffmpeg's WAV and FLAC readers hand
 * the resampler one packet of thousands of such samples at a time, which costs seconds of CPU
 * before any output limit applies. WAV, AIFF, FLAC and Ogg (Opus, Vorbis) headers are read; MP3
 * and AAC frame headers cannot carry an implausible rate; MP4 and WebM are left to the decoder's
 * CPU limit.
 */
export function implausibleAudioHeader(bytes: Uint8Array, container: AudioContainer): string | null {
  const declared = declaredAudio(bytes, container);
  if (!declared) return null;
  const name = container.toUpperCase();
  const { sampleRate, channels } = declared;
  if (sampleRate !== null && (sampleRate < PLAUSIBLE_SAMPLE_RATES.min || sampleRate > PLAUSIBLE_SAMPLE_RATES.max)) {
    return `The ${name} header declares a sample rate of ${sampleRate} Hz; audio must be between ${PLAUSIBLE_SAMPLE_RATES.min} and ${PLAUSIBLE_SAMPLE_RATES.max} Hz.`;
  }
  if (channels !== null && (channels < 1 || channels > MAX_CHANNELS)) {
    return `The ${name} header declares ${channels} channels; audio must have between 1 and ${MAX_CHANNELS}.`;
  }
  return null;
}

/** The rate and channel count the header declares, or null when it was not found. */
export function declaredAudio(bytes: Uint8Array, container: AudioContainer): DeclaredAudio | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (container) {
    case 'wav':
      return wavFormat(bytes, view);
    case 'aiff':
      return aiffCommon(bytes, view);
    case 'flac':
      return flacStreamInfo(bytes);
    case 'opus':
    case 'ogg':
      return oggIdentification(bytes, view);
    default:
      return null;
  }
}

const ascii = (bytes: Uint8Array, offset: number, length: number): string =>
  offset + length <= bytes.length ? String.fromCharCode(...bytes.subarray(offset, offset + length)) : '';

/** Chunks before the format chunk (LIST, JUNK, bext, ...) are skipped; the walk stops at the audio data. */
const MAX_CHUNKS = 64;

/**
 * Walks the chunks of a RIFF (little-endian sizes) or IFF (big-endian) file from offset 12: the
 * offset of the first chunk named `wanted`, or null when `stop` (the audio data) or the end comes first.
 */
function findChunk(bytes: Uint8Array, view: DataView, wanted: string, stop: string, littleEndian: boolean): number | null {
  let offset = 12;
  for (let i = 0; i < MAX_CHUNKS && offset + 8 <= bytes.length; i++) {
    const id = ascii(bytes, offset, 4);
    if (id === wanted) return offset;
    if (id === stop) return null;
    const size = view.getUint32(offset + 4, littleEndian);
    offset += 8 + size + (size % 2);
  }
  return null;
}

function wavFormat(bytes: Uint8Array, view: DataView): DeclaredAudio | null {
  const at = findChunk(bytes, view, 'fmt ', 'data', true);
  if (at === null || at + 16 > bytes.length) return null;
  return { channels: view.getUint16(at + 10, true), sampleRate: view.getUint32(at + 12, true) };
}

function aiffCommon(bytes: Uint8Array, view: DataView): DeclaredAudio | null {
  const at = findChunk(bytes, view, 'COMM', 'SSND', false);
  if (at === null || at + 8 + 18 > bytes.length) return null;
  return { channels: view.getUint16(at + 8, false), sampleRate: extended80(view, at + 16) };
}

/** An IEEE 754 80-bit extended float (AIFF's sample rate), rounded to an integer. */
function extended80(view: DataView, offset: number): number {
  const exponent = view.getUint16(offset, false) & 0x7fff;
  const mantissa = view.getUint32(offset + 2, false) * 2 ** 32 + view.getUint32(offset + 6, false);
  if (exponent === 0 && mantissa === 0) return 0;
  return Math.round(mantissa * 2 ** (exponent - 16383 - 63));
}

function flacStreamInfo(bytes: Uint8Array): DeclaredAudio | null {
  // "fLaC", then the first metadata block, which must be STREAMINFO (type 0, 34 bytes).
  if (bytes.length < 8 + 18 || (bytes[4]! & 0x7f) !== 0) return null;
  const at = 8 + 10;
  const sampleRate = (bytes[at]! << 12) | (bytes[at + 1]! << 4) | (bytes[at + 2]! >> 4);
  const channels = ((bytes[at + 2]! >> 1) & 0x07) + 1;
  return { sampleRate, channels };
}

/** The identification header in the first Ogg page: OpusHead (channels; always decoded at 48 kHz) or Vorbis. */
function oggIdentification(bytes: Uint8Array, view: DataView): DeclaredAudio | null {
  const head = bytes.subarray(0, Math.min(bytes.length, 512));
  const find = (magic: string): number => Buffer.from(head.buffer, head.byteOffset, head.byteLength).indexOf(magic, 0, 'latin1');
  const opus = find('OpusHead');
  if (opus >= 0 && opus + 9 < bytes.length) return { channels: bytes[opus + 9]!, sampleRate: null };
  const vorbis = find('\x01vorbis');
  if (vorbis >= 0 && vorbis + 16 <= bytes.length) return { channels: bytes[vorbis + 11]!, sampleRate: view.getUint32(vorbis + 12, true) };
  return null;
}
