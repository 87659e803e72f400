import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InferenceSession } from 'onnxruntime-node';
import { disableOnnxTelemetry } from './onnx-telemetry.js';

/**
 * One onnxruntime session for a neural model, created once at start-up and reused for every
 * request: `threads` intra-op threads, sequential execution (one sentence at a time per model).
 * Created from the file's PATH, not its bytes: a model stored with external data (`NAME.onnx` +
 * `NAME.onnx_data`, every fp32 export over 2 GB) is only found relative to its path.
 */
export async function loadVoiceModelSession(modelPath: string, threads = 1): Promise<InferenceSession> {
  disableOnnxTelemetry();
  return InferenceSession.create(modelPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
}

/** The external data files exporters write beside `NAME.onnx`: `NAME.onnx_data`, `NAME.onnx_data_1`, ... (names relative to the model's folder). */
export async function externalDataFiles(modelPath: string): Promise<string[]> {
  const prefix = `${basename(modelPath)}_data`;
  const entries = await readdir(dirname(modelPath)).catch(() => [] as string[]);
  return entries.filter((e) => e === prefix || e.startsWith(`${prefix}_`)).sort();
}

/** Bytes of a model: its `.onnx` file and any external data beside it (the weights a session holds). */
export async function onnxModelBytes(modelPath: string): Promise<number> {
  const files = [modelPath, ...(await externalDataFiles(modelPath)).map((f) => join(dirname(modelPath), f))];
  const sizes = await Promise.all(files.map(async (f) => (await stat(f)).size));
  return sizes.reduce((sum, size) => sum + size, 0);
}
