/**
 * The MSE type of a fragmented MP4 read from its init segment: the avc1 codec string comes from
 * the avcC box (profile, compatibility, level), not a guess, and mp4a is AAC-LC (`mp4a.40.2`).
 * Returns null until the whole `moov` box has arrived.
 */
export function mseTypeOf(bytes: Uint8Array): string | null {
  const moov = findBox(bytes, 'moov');
  if (!moov || moov.end > bytes.length) return null;
  const codecs: string[] = [];
  const avcC = indexOfType(bytes, 'avcC', moov.start, moov.end);
  if (avcC >= 0) {
    const p = avcC + 4; // after the type: configurationVersion, profile, compatibility, level
    const hex = (n: number) => bytes[p + n]!.toString(16).padStart(2, '0').toUpperCase();
    codecs.push(`avc1.${hex(1)}${hex(2)}${hex(3)}`);
  }
  if (indexOfType(bytes, 'mp4a', moov.start, moov.end) >= 0) codecs.push('mp4a.40.2');
  return codecs.length ? `video/mp4; codecs="${codecs.join(', ')}"` : null;
}

function findBox(bytes: Uint8Array, type: string): { start: number; end: number } | null {
  let at = 0;
  while (at + 8 <= bytes.length) {
    const size = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0);
    const name = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (name === type) return { start: at, end: at + size };
    if (size < 8) return null;
    at += size;
  }
  return null;
}

function indexOfType(bytes: Uint8Array, type: string, from: number, to: number): number {
  const codes = [...type].map((c) => c.charCodeAt(0));
  for (let i = from; i + 4 <= to; i++) {
    if (bytes[i] === codes[0] && bytes[i + 1] === codes[1] && bytes[i + 2] === codes[2] && bytes[i + 3] === codes[3]) return i;
  }
  return -1;
}
