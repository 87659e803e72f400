// Signals and measurements for the opus tests (not a test file itself).

export const RATE = 48000;

/** `ms` of a sine at `hz`, 48 kHz, amplitude `amplitude` of full scale. */
export function sine(hz: number, ms: number, amplitude = 0.3, rate = RATE): Int16Array {
  const n = Math.round((ms / 1000) * rate);
  return Int16Array.from({ length: n }, (_, i) => Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * hz * i) / rate)));
}

/** RMS in int16 units. */
export function rms(samples: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** Power of `hz` in `samples` (Goertzel), normalised by length. */
export function goertzel(samples: Int16Array, hz: number, rate = RATE): number {
  const coeff = 2 * Math.cos((2 * Math.PI * hz) / rate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const s0 = samples[i]! + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return (s1 * s1 + s2 * s2 - coeff * s1 * s2) / samples.length ** 2;
}

/** Frequency estimated from the sign changes of `samples`. */
export function zeroCrossingHz(samples: Int16Array, rate = RATE): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return crossings / 2 / (samples.length / rate);
}

/** The frequency of the strongest Goertzel bin between `fromHz` and `toHz` (step `stepHz`). */
export function dominantHz(samples: Int16Array, fromHz = 100, toHz = 2000, stepHz = 10, rate = RATE): number {
  let best = fromHz;
  let bestPower = -1;
  for (let hz = fromHz; hz <= toHz; hz += stepHz) {
    const power = goertzel(samples, hz, rate);
    if (power > bestPower) {
      bestPower = power;
      best = hz;
    }
  }
  return best;
}

/** x3 upsampling by linear interpolation (16 kHz -> 48 kHz). */
export function upsample3(samples: Int16Array): Int16Array {
  const out = new Int16Array(samples.length * 3);
  for (let i = 0; i < samples.length; i++) {
    const a = samples[i]!;
    const b = samples[Math.min(i + 1, samples.length - 1)]!;
    out[3 * i] = a;
    out[3 * i + 1] = Math.round(a + (b - a) / 3);
    out[3 * i + 2] = Math.round(a + (2 * (b - a)) / 3);
  }
  return out;
}
