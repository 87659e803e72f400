/**
 * The RFC 6381 codec strings of a fragmented MP4, read from its init segment (what a page passes to
 * `MediaSource.isTypeSupported` / `addSourceBuffer`). Read from the stream, never assumed: the
 * profile and level bytes come from x264's avcC.
 */

/** What FfmpegVideoEncoder produces for every supported size at 25 fps (checked by its tests). */
export const AVATAR_VIDEO_CODECS = 'avc1.42C01E,mp4a.40.2';
export const AVATAR_VIDEO_MIME_TYPE = `video/mp4; codecs="${AVATAR_VIDEO_CODECS}"`;

/** `avc1.PPCCLL` from the first avcC box in `bytes` (an init segment or a whole file); null if none. */
export function avcCodecString(bytes: Uint8Array): string | null {
  const at = indexOfAscii(bytes, 'avcC');
  if (at < 0 || at + 4 > bytes.length) return null;
  // avcC payload: configurationVersion, AVCProfileIndication, profile_compatibility, AVCLevelIndication
  const hex = (b: number): string => b.toString(16).toUpperCase().padStart(2, '0');
  return `avc1.${hex(bytes[at + 1]!)}${hex(bytes[at + 2]!)}${hex(bytes[at + 3]!)}`;
}

/** `mp4a.40.<audioObjectType>` from the first esds box's AudioSpecificConfig; null if none. */
export function aacCodecString(bytes: Uint8Array): string | null {
  const at = indexOfAscii(bytes, 'esds');
  if (at < 0) return null;
  // esds is a full box (4 bytes version/flags) holding ES_Descriptor (0x03) > DecoderConfigDescriptor
  // (0x04) > DecoderSpecificInfo (0x05) = AudioSpecificConfig, whose first 5 bits are the audio
  // object type (2 = AAC-LC).
  let i = at + 4;
  const descriptor = (tag: number): boolean => {
    if (bytes[i] !== tag) return false;
    i++;
    for (let n = 0; n < 4 && (bytes[i++]! & 0x80) !== 0; n++); // size, 1-4 bytes
    return true;
  };
  if (!descriptor(0x03)) return null;
  const flags = bytes[i + 2] ?? 0;
  i += 3; // ES_ID, flags
  if (flags & 0x80) i += 2; // dependsOn_ES_ID
  if (flags & 0x40) i += 1 + (bytes[i] ?? 0); // URL
  if (flags & 0x20) i += 2; // OCR_ES_Id
  if (!descriptor(0x04)) return null;
  i += 13; // objectTypeIndication, streamType, bufferSizeDB, maxBitrate, avgBitrate
  if (!descriptor(0x05)) return null;
  const first = bytes[i];
  return first === undefined ? null : `mp4a.40.${first >> 3}`;
}

function indexOfAscii(bytes: Uint8Array, tag: string): number {
  const c = [...tag].map((ch) => ch.charCodeAt(0));
  for (let i = 0; i + 4 <= bytes.length; i++) {
    if (bytes[i] === c[0] && bytes[i + 1] === c[1] && bytes[i + 2] === c[2] && bytes[i + 3] === c[3]) return i + 4;
  }
  return -1;
}
