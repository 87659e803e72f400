/** Containers recognized from their first bytes. */
export type AudioContainer = 'wav' | 'mp3' | 'aac' | 'flac' | 'opus' | 'ogg' | 'mp4' | 'webm' | 'aiff';

const ascii = (bytes: Uint8Array, offset: number, length: number): string =>
  String.fromCharCode(...bytes.subarray(offset, offset + length));

/**
 * Identifies an audio container from magic bytes, never from a claimed type or file name:
 * RIFF/WAVE, ID3 or an MPEG audio frame sync (mp3), ADTS (aac), fLaC, OggS (opus when its first
 * page carries OpusHead, else ogg/vorbis), ISO BMFF `ftyp` (mp4/m4a), EBML (webm/matroska),
 * FORM/AIFF. Returns null for anything else (text, images, empty input).
 */
export function detectAudioFormat(bytes: Uint8Array): AudioContainer | null {
  if (bytes.length < 4) return null;
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WAVE') return 'wav';
  if (ascii(bytes, 0, 4) === 'fLaC') return 'flac';
  if (ascii(bytes, 0, 4) === 'OggS') return ascii(bytes, 0, Math.min(bytes.length, 128)).includes('OpusHead') ? 'opus' : 'ogg';
  if (bytes.length >= 12 && ascii(bytes, 4, 4) === 'ftyp') return 'mp4';
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return 'webm';
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'FORM' && /^AIF[FC]$/.test(ascii(bytes, 8, 4))) return 'aiff';
  if (ascii(bytes, 0, 3) === 'ID3') return 'mp3';
  if (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0) {
    const layer = (bytes[1]! >> 1) & 0x03;
    // ADTS: 12-bit sync, layer bits 00 (0xFFF1 MPEG-4, 0xFFF9 MPEG-2).
    if ((bytes[1]! & 0xf6) === 0xf0) return 'aac';
    // MPEG audio frame: 11-bit sync, valid version (not 01), a layer, a bitrate index not 1111.
    const version = (bytes[1]! >> 3) & 0x03;
    const bitrateIndex = bytes[2]! >> 4;
    const sampleRateIndex = (bytes[2]! >> 2) & 0x03;
    if (layer !== 0 && version !== 1 && bitrateIndex !== 0x0f && sampleRateIndex !== 0x03) return 'mp3';
  }
  return null;
}
