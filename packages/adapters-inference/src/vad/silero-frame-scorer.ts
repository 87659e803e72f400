import { Tensor, type InferenceSession } from 'onnxruntime-node';
import {
  SILERO_CONTEXT_SAMPLES,
  SILERO_FRAME_SAMPLES,
  SILERO_INPUTS,
  SILERO_OUTPUTS,
  SILERO_STATE_SHAPE,
  SILERO_STATE_SIZE,
} from './silero-model.js';

/**
 * The per-stream half of Silero VAD: the recurrent state and the 64-sample context, scoring one
 * 512-sample frame at a time on the shared session. The input and state tensors wrap arrays that
 * live as long as the stream, so a frame costs no JavaScript allocation beyond what onnxruntime
 * returns.
 */
export class SileroFrameScorer {
  /** [64 samples of context | 512-sample frame], the model's `input`. */
  private readonly input = new Float32Array(SILERO_CONTEXT_SAMPLES + SILERO_FRAME_SAMPLES);
  private readonly state = new Float32Array(SILERO_STATE_SIZE);
  private readonly feeds: Record<string, Tensor>;
  /** Bumped by reset(): a run started before a reset must not write its state back. */
  private epoch = 0;
  /** Where the caller writes the next frame before calling score(). */
  readonly frame: Float32Array = this.input.subarray(SILERO_CONTEXT_SAMPLES);

  constructor(
    private readonly session: InferenceSession,
    /** The int64 scalar 16000, shared by every stream of a detector. */
    sampleRate: Tensor,
  ) {
    this.feeds = {
      [SILERO_INPUTS.audio]: new Tensor('float32', this.input, [1, this.input.length]),
      [SILERO_INPUTS.state]: new Tensor('float32', this.state, [...SILERO_STATE_SHAPE]),
      [SILERO_INPUTS.sampleRate]: sampleRate,
    };
  }

  /**
   * Speech probability of the frame in `frame`, or null when reset() was called while it ran (the
   * result belongs to the forgotten state and is dropped).
   */
  async score(): Promise<number | null> {
    const epoch = this.epoch;
    const results = await this.session.run(this.feeds);
    if (epoch !== this.epoch) return null;
    this.state.set(results[SILERO_OUTPUTS.state]!.data as Float32Array);
    // The frame's last 64 samples are the next frame's context.
    this.input.copyWithin(0, SILERO_FRAME_SAMPLES, SILERO_FRAME_SAMPLES + SILERO_CONTEXT_SAMPLES);
    return (results[SILERO_OUTPUTS.probability]!.data as Float32Array)[0]!;
  }

  reset(): void {
    this.epoch++;
    this.state.fill(0);
    this.input.fill(0);
  }
}
