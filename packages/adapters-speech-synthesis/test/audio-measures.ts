// Measurements on synthesized audio for the engine tests (not a test file itself).

/**
 * Median fundamental frequency (Hz) over voiced 40 ms frames, by normalized autocorrelation.
 * Crude but stable enough to compare two renderings of the same text.
 */
export function medianF0(samples: Int16Array, sampleRate: number, minHz = 50, maxHz = 500): number {
  const frame = Math.round(0.04 * sampleRate);
  const minLag = Math.floor(sampleRate / maxHz);
  const maxLag = Math.floor(sampleRate / minHz);
  const pitches: number[] = [];
  for (let start = 0; start + frame + maxLag < samples.length; start += frame) {
    let energy = 0;
    for (let i = 0; i < frame; i++) energy += samples[start + i]! ** 2;
    if (Math.sqrt(energy / frame) < 1000) continue;
    const correlations: number[] = [];
    let best = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let c = 0;
      let e1 = 0;
      let e2 = 0;
      for (let i = 0; i < frame; i++) {
        const a = samples[start + i]!;
        const b = samples[start + i + lag]!;
        c += a * b;
        e1 += a * a;
        e2 += b * b;
      }
      const r = c / (Math.sqrt(e1 * e2) + 1);
      correlations.push(r);
      best = Math.max(best, r);
    }
    if (best <= 0.7) continue;
    // The shortest lag nearly as good as the best: multiples of the period correlate as well.
    const lag = correlations.findIndex((r) => r >= 0.95 * best) + minLag;
    pitches.push(sampleRate / lag);
  }
  pitches.sort((a, b) => a - b);
  return pitches[Math.floor(pitches.length / 2)] ?? 0;
}

export const seconds = (samples: Int16Array, sampleRate: number): number => samples.length / sampleRate;

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Expects `promise` to reject; returns the error. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('Expected the promise to reject, but it resolved.');
}
