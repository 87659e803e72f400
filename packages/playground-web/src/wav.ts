/** A mono 16-bit WAV file around PCM samples (what the voices API and a download want). */
export function wavBlob(samples: Int16Array, sampleRate: number): Blob {
  const header = new DataView(new ArrayBuffer(44));
  const dataBytes = samples.length * 2;
  const text = (at: number, s: string) => [...s].forEach((c, i) => header.setUint8(at + i, c.charCodeAt(0)));
  text(0, 'RIFF');
  header.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, 1, true); // mono
  header.setUint32(24, sampleRate, true);
  header.setUint32(28, sampleRate * 2, true);
  header.setUint16(32, 2, true);
  header.setUint16(34, 16, true);
  text(36, 'data');
  header.setUint32(40, dataBytes, true);
  const body = new Int16Array(samples); // a copy: little-endian on every platform browsers run on
  return new Blob([header.buffer, body.buffer], { type: 'audio/wav' });
}

/** Joins PCM16 byte chunks (as they arrived from a stream) into samples. */
export function joinPcm(chunks: Uint8Array[]): Int16Array {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const bytes = new Uint8Array(total - (total % 2));
  let at = 0;
  for (const c of chunks) {
    const take = Math.min(c.length, bytes.length - at);
    bytes.set(c.subarray(0, take), at);
    at += take;
  }
  return new Int16Array(bytes.buffer);
}
