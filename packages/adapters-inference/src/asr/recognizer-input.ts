/** The only rate pocketsphinx's en-us acoustic model takes; other input rates are resampled to it. */
export const RECOGNIZER_SAMPLE_RATE = 16000;

/** Float samples in [-1, 1) to 16-bit PCM, clamped. */
export function floatToInt16(floats: Float32Array): Int16Array {
  const out = new Int16Array(floats.length);
  for (let i = 0; i < floats.length; i++) {
    const v = Math.round(floats[i]! * 32768);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}
