import { Tensor, type InferenceSession } from 'onnxruntime-node';
import { SILERO_CONTEXT_SAMPLES, SILERO_FRAME_SAMPLES, SILERO_INPUTS, SILERO_OUTPUTS, SILERO_STATE_SIZE } from './silero-model.js';

/** [64 samples of context | 512-sample frame], the model's input row for one stream. */
const ROW = SILERO_CONTEXT_SAMPLES + SILERO_FRAME_SAMPLES;
/** The recurrent state is [2, batch, 128]: each stream's 256 numbers are two rows of 128. */
const HALF_STATE = SILERO_STATE_SIZE / 2;

/** Most frames in one run. */
const MAX_BATCH = 64;

interface Waiting {
  input: Float32Array;
  state: Float32Array;
  resolve(result: { probability: number; state: Float32Array }): void;
  reject(err: unknown): void;
}

/**
 * Scores frames of many streams (sessions) in one onnxruntime run: Silero VAD v5 takes a batch
 * dimension (input [N, 576], state [2, N, 128]) and each row is independent, so a stream's
 * result is the same as scored alone. One run has a fixed cost (the call into onnxruntime, its
 * setup) that dominates this small model: measured here ~255 us of CPU per frame scored alone,
 * ~90-100 us per frame in runs of 4 to 16. Frames submitted in the same turn of the event loop
 * share a run (it starts at setImmediate, where onnxruntime-node started a lone run anyway), so
 * nothing waits for a batch to fill: batches grow by themselves as the server gets busier, which
 * is when the CPU matters. A stream submits its next frame only after the previous one's result (its state depends on it),
 * so a run holds at most one frame per stream.
 */
export class SileroBatchScorer {
  private waiting: Waiting[] = [];
  private timer: ReturnType<typeof setImmediate> | null = null;
  /** Frames scored and runs made (the batching's effect, for tests and benchmarks). */
  readonly stats = { frames: 0, runs: 0 };

  constructor(
    private readonly session: InferenceSession,
    /** The int64 scalar 16000. */
    private readonly sampleRate: Tensor,
  ) {}

  /**
   * Scores one stream's frame (`input`: context and frame) from its `state`. Both are read when the
   * run starts: the stream leaves them alone until its result (a reset meanwhile makes it discard it).
   */
  score(input: Float32Array, state: Float32Array): Promise<{ probability: number; state: Float32Array }> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, state, resolve, reject });
      if (this.waiting.length >= MAX_BATCH) this.runNow();
      else this.timer ??= setImmediate(() => this.runNow());
    });
  }

  private runNow(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = null;
    const batch = this.waiting.splice(0, MAX_BATCH);
    if (this.waiting.length > 0) this.timer = setImmediate(() => this.runNow());
    if (batch.length > 0) void this.run(batch);
  }

  private async run(batch: Waiting[]): Promise<void> {
    const n = batch.length;
    const input = new Float32Array(n * ROW);
    const state = new Float32Array(n * SILERO_STATE_SIZE);
    batch.forEach((w, i) => {
      input.set(w.input, i * ROW);
      state.set(w.state.subarray(0, HALF_STATE), i * HALF_STATE);
      state.set(w.state.subarray(HALF_STATE), (n + i) * HALF_STATE);
    });
    try {
      const results = await this.session.run({
        [SILERO_INPUTS.audio]: new Tensor('float32', input, [n, ROW]),
        [SILERO_INPUTS.state]: new Tensor('float32', state, [2, n, HALF_STATE]),
        [SILERO_INPUTS.sampleRate]: this.sampleRate,
      });
      this.stats.runs++;
      this.stats.frames += n;
      const probabilities = results[SILERO_OUTPUTS.probability]!.data as Float32Array;
      const states = results[SILERO_OUTPUTS.state]!.data as Float32Array;
      batch.forEach((w, i) => {
        const next = new Float32Array(SILERO_STATE_SIZE);
        next.set(states.subarray(i * HALF_STATE, (i + 1) * HALF_STATE), 0);
        next.set(states.subarray((n + i) * HALF_STATE, (n + i + 1) * HALF_STATE), HALF_STATE);
        w.resolve({ probability: probabilities[i]!, state: next });
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
