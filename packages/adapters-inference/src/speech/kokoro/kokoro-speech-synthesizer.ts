import { readFile } from 'node:fs/promises';
import { loadVoiceModelSession } from '../models/onnx-session.js';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import type { PresetVoice, SpeechSynthesizer, SynthesisRequest, SynthesisResult } from '@svc/core';
import { applyGain } from '../pcm-gain.js';
import { SpeexResampler } from '../speex-resampler.js';
import type { EspeakPhonemizer } from '../models/espeak-phonemizer.js';
import { estimateWordTimings, floatToInt16 } from '../piper/piper-speech-synthesizer.js';
import { KOKORO_MAX_TOKENS, KOKORO_SAMPLE_RATE, KOKORO_STYLE_DIM, kokoroStyleRow, readKokoroStyles, type KokoroModel, type KokoroVoiceFile } from './kokoro-model.js';

export interface KokoroSpeechSynthesizerOptions {
  models: KokoroModel[];
  phonemizer: EspeakPhonemizer;
  threads?: number;
  onSkipped?: (name: string, reason: string) => void;
}

/** Preset name of a Kokoro voice: `kokoro-` + the style file name (`af_heart` -> `kokoro-af_heart`). */
export function kokoroPresetName(voice: string): string {
  return `kokoro-${voice.toLowerCase()}`;
}

const REQUIRED_INPUTS = ['input_ids', 'style', 'speed'];

interface LoadedVoice {
  model: KokoroModel;
  file: KokoroVoiceFile;
  session: InferenceSession;
  styles?: Float32Array;
}

/** Phonemes to Kokoro tokens (symbols missing from the vocab dropped) with word spans, pad 0 at both ends. */
export function kokoroInputIds(words: { word: string; phonemes: string }[], vocab: Map<string, number>) {
  const ids: number[] = [0];
  const wordSpans: { word: string; start: number; end: number }[] = [];
  words.forEach((w, i) => {
    if (i > 0 && vocab.has(' ')) ids.push(vocab.get(' ')!);
    const start = ids.length;
    for (const p of w.phonemes) {
      const id = vocab.get(p);
      if (id !== undefined && ids.length <= KOKORO_MAX_TOKENS) ids.push(id);
    }
    wordSpans.push({ word: w.word, start, end: ids.length });
  });
  ids.push(0);
  return { ids, wordSpans };
}

/** The tensors of one Kokoro inference; the style row is chosen by the token count without pads. */
export function kokoroFeeds(ids: number[], styles: Float32Array, speed: number): Record<string, Tensor> {
  return {
    input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
    style: new Tensor('float32', Float32Array.from(kokoroStyleRow(styles, ids.length - 2)), [1, KOKORO_STYLE_DIM]),
    speed: new Tensor('float32', Float32Array.of(speed), [1]),
  };
}

/** Kokoro-82M through onnxruntime: one session per model, 24 kHz output resampled to the request's rate. */
export class KokoroSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine = 'kokoro';
  private readonly presets: PresetVoice[] = [];
  private readonly byPreset = new Map<string, LoadedVoice>();

  private constructor(
    private readonly phonemizer: EspeakPhonemizer,
    private readonly resampler: SpeexResampler,
    private readonly sessions: InferenceSession[],
  ) {}

  static async create(options: KokoroSpeechSynthesizerOptions): Promise<KokoroSpeechSynthesizer> {
    const sessions: InferenceSession[] = [];
    const synth = new KokoroSpeechSynthesizer(options.phonemizer, await SpeexResampler.create(), sessions);
    for (const model of options.models) {
      let session: InferenceSession;
      try {
        session = await loadVoiceModelSession(model.modelPath, options.threads);
      } catch (error) {
        options.onSkipped?.(model.name, `onnxruntime cannot load it: ${(error as Error).message.split('\n')[0]}`);
        continue;
      }
      const missing = REQUIRED_INPUTS.filter((i) => !session.inputNames.includes(i));
      if (missing.length > 0) {
        options.onSkipped?.(model.name, `not a Kokoro model: missing inputs ${missing.join(', ')}`);
        await session.release();
        continue;
      }
      sessions.push(session);
      for (const file of model.voices) {
        const name = kokoroPresetName(file.name);
        if (synth.byPreset.has(name)) continue;
        synth.presets.push({ name, engine: 'kokoro', engineVoice: name, language: file.language, gender: file.name[1] === 'm' ? 'male' : file.name[1] === 'f' ? 'female' : 'neutral', description: `Kokoro neural voice ${file.name} (${model.name}), 24 kHz` });
        synth.byPreset.set(name, { model, file, session });
      }
    }
    return synth;
  }

  voices(): PresetVoice[] {
    return [...this.presets];
  }

  async synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    const voice = this.byPreset.get(request.voice.engineVoice);
    if (!voice) throw new Error(`kokoro has no voice '${request.voice.engineVoice}'`);
    // Style files are read on first use (each is ~0.5 MB) and kept.
    voice.styles ??= await readKokoroStyles(voice.file.path);
    signal?.throwIfAborted();
    const { ids, wordSpans } = kokoroInputIds(this.phonemizer.phonemize(request.text, voice.file.espeakVoice), voice.model.vocab);
    const speed = Math.min(4, Math.max(0.25, request.prosody.rate));
    const outputs = await voice.session.run(kokoroFeeds(ids, voice.styles, speed));
    signal?.throwIfAborted();
    const audio = (outputs.waveform ?? outputs[voice.session.outputNames[0]!]!).data as Float32Array;
    const samples = applyGain(this.resampler.resample(floatToInt16(audio), KOKORO_SAMPLE_RATE, request.sampleRate), request.prosody.volume);
    return { samples, sampleRate: request.sampleRate, words: request.wordTimings ? estimateWordTimings(wordSpans, ids.length, samples.length / request.sampleRate) : [] };
  }

  async close(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.release()));
    this.sessions.length = 0;
  }
}
