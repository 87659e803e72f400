// Worker thread holding ONE neural voice model: its onnxruntime session is created once when the
// thread starts and reused for every sentence. Inference and the post-processing of its output
// (peak normalization for the voices trained to be heard that way, float -> 16-bit, resampling,
// pitch by playback rate, gain) run here, so a long synthesis never
// holds the main event loop (realtime sessions keep their timing).
import { workerData } from 'node:worker_threads';
import { Tensor, type InferenceSession } from 'onnxruntime-node';
import { loadVoiceModelSession } from '@svc/adapters-runtime';
import { toOutputAudio } from '../output-audio.js';
import { floatToInt16, hostWorker } from '@svc/adapters-runtime/worker';
import type { OnnxModelInfo, OnnxSynthesisJob, OnnxSynthesisResult, OnnxWorkerData } from './onnx-model-job.js';
import { peakNormalized, withHeadroom } from './peak-normalization.js';

interface State {
  session: InferenceSession;
  audioOutput: string;
  durationOutput: string | undefined;
}

void hostWorker<OnnxSynthesisJob, OnnxSynthesisResult, State>(
  async () => {
    const { modelPath, threads } = workerData as OnnxWorkerData;
    const session = await loadVoiceModelSession(modelPath, threads);
    const outputNames = [...session.outputNames];
    const info: OnnxModelInfo = { inputNames: [...session.inputNames], outputNames };
    const audioOutput = outputNames.includes('waveform') ? 'waveform' : outputNames[0]!;
    const durationOutput = outputNames.find((n) => n === 'durations' || n === 'duration');
    return { state: { session, audioOutput, durationOutput }, info };
  },
  async (state, job) => {
    const feeds: Record<string, Tensor> = {};
    for (const [name, f] of Object.entries(job.feeds)) feeds[name] = new Tensor(f.type, f.data, f.dims);
    const outputs = await state.session.run(feeds);
    const audio = outputs[state.audioOutput]!.data as Float32Array;
    const samples = job.normalizePeak
      ? peakNormalized(toOutputAudio(floatToInt16(withHeadroom(audio)), job.nativeRate, { ...job.output, volume: 1 }), job.output.volume)
      : toOutputAudio(floatToInt16(audio), job.nativeRate, job.output);
    const durationData = state.durationOutput ? outputs[state.durationOutput]?.data : undefined;
    const durations = durationData ? Float32Array.from(durationData as ArrayLike<number | bigint>, Number) : undefined;
    for (const t of Object.values(outputs)) t.dispose();
    return {
      value: { samples, durations },
      transfer: [samples.buffer as ArrayBuffer, ...(durations ? [durations.buffer as ArrayBuffer] : [])],
    };
  },
);
