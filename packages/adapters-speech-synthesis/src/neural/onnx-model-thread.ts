import { onnxModelBytes } from '@svc/adapters-runtime';
import { WorkerPool } from '@svc/adapters-runtime';
import type { OnnxModelInfo, OnnxSynthesisJob, OnnxSynthesisResult, OnnxWorkerData } from './onnx-model-job.js';

/**
 * One neural model in its own worker thread (one session, created once, reused). Sentences for the
 * same model queue in order; different models run in parallel on their own threads.
 */
export class OnnxModelThread {
  private constructor(
    /** The model's name in the model directory. */
    readonly name: string,
    /** Size of the model file and its external data: its weights, the bulk of what the session holds in memory. */
    readonly bytes: number,
    readonly info: OnnxModelInfo,
    private readonly pool: WorkerPool<OnnxSynthesisJob, OnnxSynthesisResult>,
  ) {}

  /** Starts the thread and loads the model; rejects with onnxruntime's reason when it cannot. */
  static async start(engine: string, name: string, modelPath: string, threads: number): Promise<OnnxModelThread> {
    const bytes = await onnxModelBytes(modelPath);
    const workerData: OnnxWorkerData = { modelPath, threads };
    const { pool, info } = await WorkerPool.start<OnnxSynthesisJob, OnnxSynthesisResult>({
      name: `${engine} ${name}`,
      script: new URL('./onnx-model-worker.js', import.meta.url),
      size: 1,
      workerData,
    });
    return new OnnxModelThread(name, bytes, info as OnnxModelInfo, pool);
  }

  run(job: OnnxSynthesisJob, signal?: AbortSignal): Promise<OnnxSynthesisResult> {
    return this.pool.run(job, { signal, transfer: Object.values(job.feeds).map((f) => f.data.buffer as ArrayBuffer) });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
