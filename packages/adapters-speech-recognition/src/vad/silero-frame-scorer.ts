import { SILERO_STATE_SIZE } from './silero-model.js';
import type { SileroBatchScorer } from './silero-batch.js';

/**
 * The per-stream half of Silero VAD: the recurrent state and the 64-sample context, scoring one
 * 512-sample frame at a time through the detector's batch scorer (shared by every stream, so the
 * frames of sessions speaking at once go through onnxruntime in one run).
 */
export class SileroFrameScorer {
  /** [context | frame], the model's `input` row (64 + 512 samples at 16 kHz, 32 + 256 at 8 kHz). */
  private readonly input: Float32Array;
  private readonly state = new Float32Array(SILERO_STATE_SIZE);
  /** Bumped by reset(): a run started before a reset must not write its state back. */
  private epoch = 0;
  /** Where the caller writes the next frame before calling score(). */
  readonly frame: Float32Array;

  constructor(private readonly batch: SileroBatchScorer) {
    this.input = new Float32Array(batch.rate.contextSamples + batch.rate.frameSamples);
    this.frame = this.input.subarray(batch.rate.contextSamples);
  }

  /**
   * Speech probability of the frame in `frame` (`catchingUp`: more frames of this stream are queued
   * behind it, so it is scored without waiting for other streams' frames), or null when reset() was called while it ran (the
   * result belongs to the forgotten state and is dropped).
   */
  async score(catchingUp = false): Promise<number | null> {
    const epoch = this.epoch;
    const result = await this.batch.score(this.input, this.state, catchingUp);
    if (epoch !== this.epoch) return null;
    this.state.set(result.state);
    // The frame's last samples are the next frame's context.
    this.input.copyWithin(0, this.frame.length);
    return result.probability;
  }

  reset(): void {
    this.epoch++;
    this.state.fill(0);
    this.input.fill(0);
  }
}
