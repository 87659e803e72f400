/**
 * Where the voice went quiet: the end of the last 10 ms frame at least VOICE_OVER_QUIET_DB louder
 * than the quietest frames of the same stretch (its 10th percentile: the room's noise, or digital
 * silence). A detector can hear the soft end of a sentence (a breath, the room's noise) as speech
 * for a while after the last word; the level says where the voice itself stopped. Speech sits 20-36
 * dB over the noise of the recorded sentences, the noise after their last words 3-8 dB
 * (docs/benchmarks.md, "The end of speech").
 */
export const VOICE_OVER_QUIET_DB = 12;
const FRAME_MS = 10;

/**
 * `samples` at `sampleRate` start at `startMs` on the input's timeline; returns that timeline's ms
 * where the voice went quiet, or null when no frame stands out (all quiet, or too little audio).
 */
export function voiceQuietSince(samples: Int16Array, sampleRate: number, startMs: number): number | null {
  const frame = Math.round((FRAME_MS / 1000) * sampleRate);
  const count = Math.floor(samples.length / frame);
  if (count < 10) return null;
  const levels = new Float64Array(count);
  for (let f = 0; f < count; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) sum += samples[i]! * samples[i]!;
    levels[f] = 10 * Math.log10(sum / frame + 1e-9);
  }
  const floor = [...levels].sort((a, b) => a - b)[Math.floor(count / 10)]!;
  for (let f = count - 1; f >= 0; f--) if (levels[f]! >= floor + VOICE_OVER_QUIET_DB) return startMs + (f + 1) * FRAME_MS;
  return null;
}
