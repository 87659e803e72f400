import { Tensor, type InferenceSession } from 'onnxruntime-node';
import { SILERO_INPUTS, SILERO_OUTPUTS, SILERO_STATE_SIZE, SILERO_WIDEBAND, type SileroRate } from './silero-model.js';

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

/** How long a frame waits for the other open streams' frames by default (ms): half a frame. */
export const DEFAULT_BATCH_WAIT_MS = 16;

/**
 * Scores frames of many streams (sessions) in one onnxruntime run: Silero VAD v5 takes a batch
 * dimension (input [N, 576], state [2, N, 128]) and each row is independent, so a stream's
 * result is the same as scored alone. One run has a fixed cost (the call into onnxruntime, its
 * setup) that dominates this small model: a frame scored alone costs several times its share of a
 * run of 3 to 16 (docs/realtime.md, "What a speaking session costs").
 *
 * Sessions do not send their audio at the same moments (each client has its own clock), so frames
 * submitted in the same turn of the event loop were rarely more than one (issue 17: 5 callers at
 * real-time pace, about one frame per run). So a frame waits up to `waitMs` for the frames of the
 * other open streams: the run starts as soon as every open stream has a frame waiting (one
 * session alone never waits), or when the wait is over. With streams spread evenly over the 32 ms
 * frame period, a 16 ms wait gathers about half of them; the price is at most `waitMs` more before
 * a turn's start or end is known (`waitMs` 0: only frames of the same event-loop turn share a run).
 * A stream submits its next frame only after the previous one's result (its state depends on it),
 * so a run holds at most one frame per stream.
 */
export class SileroBatchScorer {
  private waiting: Waiting[] = [];
  private timer:
    { kind: 'immediate'; handle: ReturnType<typeof setImmediate> } | { kind: 'timeout'; handle: ReturnType<typeof setTimeout> } | null =
    null;
  /** Streams open now: when each has a frame waiting, nobody else is coming. */
  private openStreams = 0;
  /** Frames scored and runs made (the batching's effect, for tests and benchmarks). */
  readonly stats = { frames: 0, runs: 0 };

  /** The int64 scalar `sr` input, read-only, shared by all runs. */
  private readonly sampleRate: Tensor;
  /** [context | frame], the model's input row for one stream (64 + 512 samples at 16 kHz, 32 + 256 at 8 kHz). */
  private readonly row: number;

  constructor(
    private readonly session: InferenceSession,
    /** Longest a frame waits for other streams' frames (ms); 0: only those of the same event-loop turn. */
    private readonly waitMs = DEFAULT_BATCH_WAIT_MS,
    /** The rate every frame of this scorer is at: one run has one `sr`, so each rate has its own scorer. */
    readonly rate: SileroRate = SILERO_WIDEBAND,
  ) {
    this.sampleRate = new Tensor('int64', BigInt64Array.of(BigInt(rate.sampleRate)), []);
    this.row = rate.contextSamples + rate.frameSamples;
  }

  /** A stream opened: runs wait for its frames too. */
  streamOpened(): void {
    this.openStreams++;
  }

  /** A stream closed: its frames are no longer waited for. */
  streamClosed(): void {
    this.openStreams = Math.max(0, this.openStreams - 1);
    if (this.waiting.length > 0 && this.waiting.length >= this.openStreams) this.schedule(true);
  }

  /**
   * Scores one stream's frame (`input`: context and frame) from its `state`; `catchingUp`: the
   * stream has more frames queued, so the run does not wait for other streams. `input` and `state`
   * are read when the run starts: the stream leaves them alone until its result (a reset meanwhile
   * makes it discard it).
   */
  score(input: Float32Array, state: Float32Array, catchingUp = false): Promise<{ probability: number; state: Float32Array }> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, state, resolve, reject });
      if (this.waiting.length >= MAX_BATCH) this.runNow();
      // A stream catching up on a backlog would drain it at one frame per wait: it runs at once.
      else this.schedule(catchingUp || this.waiting.length >= this.openStreams);
    });
  }

  /**
   * When the waiting frames run: `everyone` (every open stream has a frame waiting), at the end of
   * this event-loop turn, as frames submitted together always did; otherwise once the wait is over.
   */
  private schedule(everyone: boolean): void {
    if (everyone || this.waitMs <= 0) {
      if (this.timer?.kind === 'immediate') return;
      this.cancelTimer();
      this.timer = { kind: 'immediate', handle: setImmediate(() => this.runNow()) };
    } else if (!this.timer) {
      this.timer = { kind: 'timeout', handle: setTimeout(() => this.runNow(), this.waitMs) };
    }
  }

  private cancelTimer(): void {
    if (this.timer?.kind === 'immediate') clearImmediate(this.timer.handle);
    else if (this.timer?.kind === 'timeout') clearTimeout(this.timer.handle);
    this.timer = null;
  }

  private runNow(): void {
    this.cancelTimer();
    const batch = this.waiting.splice(0, MAX_BATCH);
    if (this.waiting.length > 0) this.schedule(true);
    if (batch.length > 0) void this.run(batch);
  }

  private async run(batch: Waiting[]): Promise<void> {
    const n = batch.length;
    const input = new Float32Array(n * this.row);
    const state = new Float32Array(n * SILERO_STATE_SIZE);
    batch.forEach((w, i) => {
      input.set(w.input, i * this.row);
      state.set(w.state.subarray(0, HALF_STATE), i * HALF_STATE);
      state.set(w.state.subarray(HALF_STATE), (n + i) * HALF_STATE);
    });
    try {
      const results = await this.session.run({
        [SILERO_INPUTS.audio]: new Tensor('float32', input, [n, this.row]),
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
