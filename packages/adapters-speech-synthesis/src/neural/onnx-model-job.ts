import type { OutputSpec } from '../output-audio.js';

// Messages between a neural engine and the worker thread that holds one model's onnxruntime session.

/** One input tensor, as plain typed arrays (onnxruntime Tensors do not cross threads). */
export type OnnxFeed = { type: 'int64'; dims: number[]; data: BigInt64Array } | { type: 'float32'; dims: number[]; data: Float32Array };

/** Input name -> tensor. */
export type OnnxFeeds = Record<string, OnnxFeed>;

export interface OnnxSynthesisJob {
  feeds: OnnxFeeds;
  /** The model's own output rate. */
  nativeRate: number;
  /** Resampling, playback-rate pitch shift and gain, done in the worker too. */
  output: OutputSpec;
  /** Scale the sentence so its peak is full scale before the volume (Piper's normalize_audio; peak-normalization.ts). */
  normalizePeak?: boolean;
}

export interface OnnxSynthesisResult {
  /** 16-bit audio at `output.sampleRate`. */
  samples: Int16Array;
  /** Per-token durations when the model outputs them (an output named `durations` or `duration`). */
  durations?: Float32Array;
}

export interface OnnxWorkerData {
  modelPath: string;
  /** onnxruntime intra-op threads of the session. */
  threads: number;
}

export interface OnnxModelInfo {
  inputNames: string[];
  outputNames: string[];
}

export const int64Feed = (values: number[], dims = [1, values.length]): OnnxFeed => ({
  type: 'int64',
  dims,
  data: BigInt64Array.from(values, BigInt),
});
export const float32Feed = (values: ArrayLike<number>, dims: number[]): OnnxFeed => ({
  type: 'float32',
  dims,
  data: Float32Array.from(values),
});
