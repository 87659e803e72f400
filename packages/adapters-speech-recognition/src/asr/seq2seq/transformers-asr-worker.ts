// Worker thread holding ONE Whisper/Moonshine model: its sessions are created once when the thread
// starts and reused for every turn. Log-mel features, the encoder and the whole decoding loop run
// here, so a long transcription never holds the main event loop (realtime sessions keep their timing).
import { workerData } from 'node:worker_threads';
import { hostWorker } from '@svc/adapters-runtime/worker';
import { isCancelled } from '@svc/adapters-runtime/worker';
import { Seq2SeqRecognition } from './seq2seq-recognition.js';
import type { TransformersAsrJob, TransformersAsrWorkerData } from './transformers-asr-job.js';
import type { DetailedTranscript } from './transcript.js';
import { StreamingResampler } from '@svc/adapters-runtime/worker';
import { RECOGNIZER_SAMPLE_RATE } from '../recognizer-input.js';

/** Whole files arrive as 16-bit audio at their own rate; resampling them is work for this thread too. */
function samples16k(job: TransformersAsrJob): Float32Array {
  if (job.samples instanceof Float32Array) return job.samples;
  return Float32Array.from(new StreamingResampler(job.sampleRate ?? RECOGNIZER_SAMPLE_RATE, RECOGNIZER_SAMPLE_RATE).process(job.samples));
}

void hostWorker<TransformersAsrJob, DetailedTranscript, Seq2SeqRecognition>(
  async () => {
    const { dir, threads } = workerData as TransformersAsrWorkerData;
    const recognition = await Seq2SeqRecognition.load(dir, threads);
    return { state: recognition, info: { languages: recognition.languages } };
  },
  async (recognition, job, cancel) => {
    // The pool raises the shared flag on abort; the decoding loop checks it between steps.
    const signal = {
      get aborted() {
        return isCancelled(cancel);
      },
    } as AbortSignal;
    return { value: await recognition.recognize(samples16k(job), job, signal) };
  },
);
