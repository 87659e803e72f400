/**
 * Where the voice went quiet: the end of the last 10 ms frame at least VOICE_OVER_QUIET_DB louder
 * than the quietest frames of the same stretch (the 10th percentile of its frames that are not
 * digital silence: the room's noise). A detector can hear the soft end of a sentence (a breath,
 * the room's noise) as speech for a while after the last word; the level says where the voice
 * itself stopped. Speech sits 20-36 dB over the noise of the recorded sentences, the noise after
 * their last words 3-8 dB (docs/benchmarks.md, "The end of speech").
 */
export const VOICE_OVER_QUIET_DB = 12;
const FRAME_MS = 10;
/** The level (dB of the mean square, in samples) at or below which a frame is digital silence: samples of 0 and +-1. */
const DIGITAL_SILENCE_DB = 0;

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
  // Digital silence (a client that sends zeros between its phrases) is no room: against it the
  // room's own noise after a last word would stand out as voice. The recognizer's decoder script
  // measures the room the same way (InputLevels in pocketsphinx_stream.py).
  const sounding = levels.filter((level) => level > DIGITAL_SILENCE_DB).sort();
  if (sounding.length > 0) {
    const floor = sounding[Math.floor(sounding.length / 10)]!;
    for (let f = count - 1; f >= 0; f--) if (levels[f]! >= floor + VOICE_OVER_QUIET_DB) return startMs + (f + 1) * FRAME_MS;
  }
  // Nothing stands out of the sound itself: with digital silence after it, the voice ends where the sound does.
  for (let f = count - 1; f >= 0; f--) if (levels[f]! > DIGITAL_SILENCE_DB) return f === count - 1 ? null : startMs + (f + 1) * FRAME_MS;
  return null;
}
