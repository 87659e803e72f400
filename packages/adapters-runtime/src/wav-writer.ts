/** The canonical 44-byte RIFF/WAVE header for mono 16-bit PCM of `dataBytes` bytes. */
export function wavHeader(sampleRate: number, dataBytes: number): Uint8Array {
  const header = new Uint8Array(44);
  const view = new DataView(header.buffer);
  const text = (offset: number, s: string): void => {
    for (let i = 0; i < s.length; i++) header[offset + i] = s.charCodeAt(i);
  };
  text(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  text(36, 'data');
  view.setUint32(40, dataBytes, true);
  return header;
}

/** A whole mono 16-bit WAV file of the samples. */
export function pcmToWav(audio: { samples: Int16Array; sampleRate: number }): Uint8Array {
  const dataBytes = audio.samples.length * 2;
  const out = new Uint8Array(44 + dataBytes);
  out.set(wavHeader(audio.sampleRate, dataBytes), 0);
  const view = new DataView(out.buffer, 44);
  for (let i = 0; i < audio.samples.length; i++) view.setInt16(i * 2, audio.samples[i]!, true);
  return out;
}
