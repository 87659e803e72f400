// Worker thread holding one warm espeak-ng instance (Emscripten build, synchronous API). Running it
// here keeps synthesis off the main event loop and makes calls cancellable mid-way: the audio
// callback polls the job's shared cancel flag and stops espeak when it is raised.
import Init, { type ESpeakNGWorker } from '@echogarden/espeak-ng-emscripten';
import { toOutputAudio } from '../output-audio.js';
import { hostWorker, isCancelled } from '@svc/adapters-runtime/worker';
import type { EspeakJobRequest, EspeakJobResult, EspeakTimingEvent, EspeakWorkerInfo } from './espeak-job.js';

interface EspeakState {
  engine: ESpeakNGWorker;
  sampleRate: number;
  currentVoice: string | null;
}

void hostWorker<EspeakJobRequest, EspeakJobResult, EspeakState>(
  async () => {
    const module = await Init();
    const engine = new module.eSpeakNGWorker();
    const sampleRate = engine.get_samplerate();
    const info: EspeakWorkerInfo = { sampleRate, voices: engine.list_voices() };
    return { state: { engine, sampleRate, currentVoice: null }, info };
  },
  (state, request, cancel) => {
    const result = synthesize(state, request, cancel);
    return { value: result, transfer: [result.samples.buffer as ArrayBuffer] };
  },
);

function synthesize(state: EspeakState, request: EspeakJobRequest, cancel: Int32Array): EspeakJobResult {
  const { engine } = state;
  if (state.currentVoice !== request.voice) {
    // Loading a voice loads its dictionary: only when it changes.
    const code = engine.set_voice(request.voice);
    if (code !== 0) throw new Error(`espeak-ng cannot load voice '${request.voice}' (code ${code}).`);
    state.currentVoice = request.voice;
  }
  engine.set_rate(request.rate);
  engine.set_pitch(request.pitch);
  engine.set_range(request.range);

  const chunks: Int16Array[] = [];
  const events: EspeakTimingEvent[] = [];
  let total = 0;
  engine.synthesize(request.text, (samples, rawEvents) => {
    chunks.push(samples);
    total += samples.length;
    for (const e of rawEvents) {
      const type =
        e.type === 'word'
          ? 'word'
          : e.type === 'phoneme'
            ? e.id === ''
              ? 'pause'
              : 'phoneme'
            : e.type === 'end' || e.type === 'msg_terminated'
              ? 'end'
              : e.type === 'sentence'
                ? 'sentence'
                : null;
      if (type) events.push({ type, textPosition: e.text_position, audioMs: e.audio_position });
    }
    return isCancelled(cancel);
  });

  const samples = new Int16Array(total);
  let offset = 0;
  for (const c of chunks) {
    samples.set(c, offset);
    offset += c.length;
  }
  return {
    samples: toOutputAudio(samples, state.sampleRate, request.output),
    events,
    durationSeconds: total / state.sampleRate,
  };
}
