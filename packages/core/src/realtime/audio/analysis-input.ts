import type { ResamplerStream } from '../ports/audio-pipeline.js';

/**
 * The input as the analysis engines hear it: the session's PCM resampled ONCE to the rate the
 * voice activity detector and the recognizer both take, shared by the two, plus the last few
 * seconds of it so a turn's recognition can start from the padded speech onset. Its clock starts
 * with the detector's (both are opened together), so the detector's event times index it directly.
 */
export class AnalysisInput {
  private chunks: Int16Array[] = [];
  private heldSamples = 0;
  /** Samples produced since the detector was opened. */
  private endSample = 0;
  private readonly keepSamples: number;

  constructor(
    /** Null when the input already has the analysis rate. */
    private readonly resampler: ResamplerStream | null,
    readonly sampleRate: number,
    /** How much recent audio is kept for a turn's onset (prefix padding and the detector's delay). */
    keepMs: number,
  ) {
    this.keepSamples = Math.ceil((keepMs / 1000) * sampleRate);
  }

  /** The next input chunk at the analysis rate (the samples the detector and the recognizer get). */
  append(pcm: Int16Array): Int16Array {
    const samples = this.resampler ? this.resampler.process(pcm) : pcm;
    if (samples.length === 0) return samples;
    this.chunks.push(samples);
    this.heldSamples += samples.length;
    this.endSample += samples.length;
    while (this.chunks.length > 1 && this.heldSamples - this.chunks[0]!.length >= this.keepSamples) {
      this.heldSamples -= this.chunks.shift()!.length;
    }
    return samples;
  }

  /** Detector time (ms) of the end of the audio so far. */
  get endMs(): number {
    return (this.endSample / this.sampleRate) * 1000;
  }

  /** The kept audio from `ms` (detector time) to now: a turn's onset for its recognizer. */
  since(ms: number): Int16Array {
    const first = this.endSample - this.heldSamples;
    const from = Math.max(0, Math.min(this.heldSamples, Math.round((ms / 1000) * this.sampleRate) - first));
    const out = new Int16Array(this.heldSamples - from);
    let at = 0;
    let skip = from;
    for (const chunk of this.chunks) {
      if (skip >= chunk.length) {
        skip -= chunk.length;
        continue;
      }
      out.set(skip > 0 ? chunk.subarray(skip) : chunk, at);
      at += chunk.length - skip;
      skip = 0;
    }
    return out;
  }
}
