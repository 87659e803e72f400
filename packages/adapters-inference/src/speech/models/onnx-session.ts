import { readFile } from 'node:fs/promises';
import { InferenceSession } from 'onnxruntime-node';

/**
 * One onnxruntime session for a neural voice model, created once at start-up and reused for every
 * request: `threads` intra-op threads, sequential execution (one sentence at a time per model).
 */
export async function loadVoiceModelSession(modelPath: string, threads = 1): Promise<InferenceSession> {
  return InferenceSession.create(await readFile(modelPath), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
}
