/** Mono 16-bit PCM read out of a RIFF/WAVE file (what flite writes). */
export interface WavPcm {
  samples: Int16Array;
  sampleRate: number;
}

/**
 * Reads the `fmt ` and `data` chunks of a 16-bit PCM WAV file, walking the chunk list rather than
 * assuming a 44-byte header. Only the first channel is kept.
 */
export function readWav(bytes: Uint8Array): WavPcm {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (offset: number): string => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('Not a RIFF/WAVE file.');
  let offset = 12;
  let sampleRate = 0;
  let channels = 1;
  let bitsPerSample = 16;
  while (offset + 8 <= bytes.length) {
    const id = tag(offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      const audioFormat = view.getUint16(body, true);
      channels = view.getUint16(body + 2, true);
      sampleRate = view.getUint32(body + 4, true);
      bitsPerSample = view.getUint16(body + 14, true);
      if (audioFormat !== 1 || bitsPerSample !== 16) throw new Error('Only 16-bit PCM WAV is supported.');
    } else if (id === 'data') {
      if (!sampleRate) throw new Error('WAV data chunk before its fmt chunk.');
      // Some writers leave the size at 0 or too large; trust the bytes actually present.
      const end = Math.min(bytes.length, size > 0 ? body + size : bytes.length);
      const frames = Math.floor((end - body) / (2 * channels));
      const samples = new Int16Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = view.getInt16(body + i * 2 * channels, true);
      return { samples, sampleRate };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk.');
}
