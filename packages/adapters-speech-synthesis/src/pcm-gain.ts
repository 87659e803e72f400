/**
 * Applies a linear gain (the Prosody `volume`) with hard clipping to the int16 range. Engines' own
 * volume knobs differ (espeak has one, flite has none), so loudness is applied the same way to both.
 */
export function applyGain(samples: Int16Array, gain: number): Int16Array {
  if (gain === 1 || !Number.isFinite(gain)) return samples;
  const g = Math.max(0, gain);
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i]! * g);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}
