import type { Seq2SeqRequest } from './seq2seq-recognition.js';

// Messages between a TransformersSpeechRecognizer and the worker thread holding its model.

export interface TransformersAsrWorkerData {
  dir: string;
  /** onnxruntime intra-op threads of each session (SVC_ONNX_THREADS). */
  threads: number;
}

export interface TransformersAsrJob extends Seq2SeqRequest {
  /** Mono audio, moved (not copied) to the worker: 16-bit at `sampleRate`, or float already at 16 kHz. */
  samples: Int16Array | Float32Array;
  /** Rate of 16-bit `samples` (resampled to 16 kHz in the worker). */
  sampleRate?: number;
}
