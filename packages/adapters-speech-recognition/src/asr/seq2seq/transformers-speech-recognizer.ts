import type { PcmAudio, RecognitionOptions, RecognitionStream, SpeechRecognizer, TranscriptionOptions } from '@svc/core';
import { throwIfAborted } from '@svc/adapters-runtime';
import { onnxModelBytes } from '@svc/adapters-runtime';
import { WorkerPool } from '@svc/adapters-runtime';
import { BufferedRecognitionStream } from './buffered-recognition-stream.js';
import type { DetailedTranscript } from './transcript.js';
import type { TransformersAsrJob, TransformersAsrWorkerData } from './transformers-asr-job.js';
import { readTransformersAsrModel, type TransformersAsrModel } from './transformers-model-folder.js';

export interface TransformersSpeechRecognizerOptions {
  /** The model folder (transformers.js ONNX layout). */
  dir: string;
  /** Name shown in logs, /readyz, /metrics and the `model` of transcriptions (default: the folder's name). */
  name?: string;
  /** onnxruntime intra-op threads per session (SVC_ONNX_THREADS). */
  threads?: number;
}

/**
 * Whisper or Moonshine from a transformers.js ONNX export, on onnxruntime-node (nothing is fetched:
 * the files are read from the folder). The model lives in its own worker thread (sessions created
 * once there; features and decoding run there too), the same WorkerPool the neural voices use.
 * Neither model streams, so a realtime turn is buffered while the user speaks and decoded once at
 * its end; turns for one model are decoded one at a time, in arrival order.
 */
export class TransformersSpeechRecognizer implements SpeechRecognizer {
  private constructor(
    readonly name: string,
    readonly engine: 'whisper' | 'moonshine',
    readonly languages: string[],
    /** Size of the model's .onnx files: their weights, the bulk of what the sessions hold in memory. */
    readonly bytes: number,
    private readonly pool: WorkerPool<TransformersAsrJob, DetailedTranscript>,
    readonly model: TransformersAsrModel,
  ) {}

  /** Reads the folder and loads its sessions in the model's thread; a missing or incomplete model throws naming the path. */
  static async create(options: TransformersSpeechRecognizerOptions): Promise<TransformersSpeechRecognizer> {
    // Read here first too: the folder's errors (missing files, bad JSON) reach the caller as they are.
    const model = await readTransformersAsrModel(options.dir);
    const name = options.name ?? model.dir.split('/').filter(Boolean).pop()!;
    const workerData: TransformersAsrWorkerData = { dir: options.dir, threads: options.threads ?? 1 };
    const { pool, info } = await WorkerPool.start<TransformersAsrJob, DetailedTranscript>({
      name: `${model.family}:${name}`,
      script: new URL('./transformers-asr-worker.js', import.meta.url),
      size: 1,
      workerData,
    }).catch((error: Error) => {
      // Keep the worker's own reason (it names the file) as the message, not the pool's wrapper.
      throw new Error(error.message.replace(/^The .* engine failed to start: /, ''));
    });
    const files = [model.encoderPath, ...Object.values(model.decoder)];
    const bytes = (await Promise.all(files.map(onnxModelBytes))).reduce((sum, b) => sum + b, 0);
    return new TransformersSpeechRecognizer(name, model.family, (info as { languages: string[] }).languages, bytes, pool, model);
  }

  /** The model for the svc_neural_model_bytes gauge (same shape as the neural voices report). */
  loadedModels(): { engine: string; model: string; bytes: number }[] {
    return [{ engine: this.engine, model: this.name, bytes: this.bytes }];
  }

  openStream(options: RecognitionOptions & { sampleRate: number }, signal: AbortSignal): RecognitionStream {
    return new BufferedRecognitionStream(options.sampleRate, signal, (samples16k) =>
      this.recognize(samples16k, { language: options.language }, signal).then((t) => ({ text: t.text })),
    );
  }

  async transcribe(audio: PcmAudio, options: RecognitionOptions, signal?: AbortSignal): Promise<{ text: string }> {
    const result = await this.transcribeDetailed(audio, options, signal);
    return { text: result.text };
  }

  /** Text, language and one segment per 30 s window (neither model gives word times without alignment heads); Whisper takes the prompt as earlier context. */
  async transcribeDetailed(audio: PcmAudio, options: TranscriptionOptions, signal?: AbortSignal): Promise<DetailedTranscript> {
    throwIfAborted(signal);
    return this.recognize(audio.samples, { language: options.language, prompt: options.prompt, sampleRate: audio.sampleRate }, signal);
  }

  private recognize(
    samples: Int16Array | Float32Array,
    request: Omit<TransformersAsrJob, 'samples'>,
    signal: AbortSignal | undefined,
  ): Promise<DetailedTranscript> {
    // A copy of our own is moved to the thread (the caller's buffer stays usable).
    const own = samples.slice();
    const job: TransformersAsrJob = { ...request, samples: own };
    if (!job.prompt) delete job.prompt;
    return this.pool.run(job, { signal, transfer: [own.buffer as ArrayBuffer] });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
