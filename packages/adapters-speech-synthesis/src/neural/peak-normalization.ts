import { applyGain } from '../pcm-gain.js';

// Piper's normalize_audio (piper1-gpl's voice.py, and the C++ Piper before it): every sentence the
// model speaks is scaled so its loudest sample is full scale, then the volume is applied. A Piper
// voice's raw output peaks well below full scale, so without it the voice is quieter than in Piper.
// Here the scaling is split in two so that nothing clips on the way: the model's floats are brought
// to half scale before they become 16-bit and are resampled (resampling and the pitch shift can
// overshoot the input's peak), and the final samples are scaled to full scale times the volume.

/** The level the model output is brought to before resampling: room for the resampler's overshoot. */
const HEADROOM_PEAK = 0.5;

/** The model's output scaled so its peak is HEADROOM_PEAK (silence stays silence). */
export function withHeadroom(audio: Float32Array): Float32Array {
  let peak = 0;
  for (const v of audio) if (Math.abs(v) > peak) peak = Math.abs(v);
  if (peak < 1e-8) return new Float32Array(audio.length);
  const gain = HEADROOM_PEAK / peak;
  return audio.map((v) => v * gain);
}

/** Final samples scaled so the loudest is full scale times `volume` (Piper's normalize, then its volume). */
export function peakNormalized(samples: Int16Array, volume: number): Int16Array {
  let peak = 0;
  for (const v of samples) if (Math.abs(v) > peak) peak = Math.abs(v);
  if (peak === 0) return samples;
  return applyGain(samples, (32767 / peak) * (Number.isFinite(volume) ? Math.max(0, volume) : 1));
}
