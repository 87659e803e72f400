import type { PresetVoice, SpeechSynthesizer, SynthesisRequest, SynthesisResult } from '@svc/core';
import type { EspeakPhonemizer, PhonemizedWord } from '../models/espeak-phonemizer.js';
import { neuralWordTimings, type WordSpan } from './neural-audio.js';
import type { OnnxFeeds } from './onnx-model-job.js';
import { OnnxModelThread } from './onnx-model-thread.js';

export interface NeuralEngineOptions {
  phonemizer: EspeakPhonemizer;
  /** onnxruntime intra-op threads per model session (SVC_ONNX_THREADS). */
  threads?: number;
  /** Called for a model that cannot be loaded or lacks the engine's inputs: it is skipped, the others load. */
  onSkipped?: (name: string, reason: string) => void;
}

/** A preset of a neural engine and the model thread that renders it. */
export interface NeuralVoice {
  preset: PresetVoice;
  model: OnnxModelThread;
  /** espeak-ng voice that phonemizes text for it. */
  espeakVoice: string;
}

/** One inference: the tensors, the model's output rate, and where each word's tokens are. */
export interface NeuralInference {
  feeds: OnnxFeeds;
  nativeRate: number;
  tokens: number;
  wordSpans: WordSpan[];
  /** The model family's reference scales each sentence to full scale (Piper). */
  normalizePeak?: boolean;
}

/** What `/metrics` reports per loaded model. */
export interface LoadedModel {
  engine: string;
  model: string;
  bytes: number;
}

/** A neural engine as the composition sees it: a speech engine that reports its loaded models. */
export interface NeuralEngine extends SpeechSynthesizer {
  loadedModels(): LoadedModel[];
  close(): Promise<void>;
}

const clamp = (v: number, lo: number, hi: number): number => (Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : 1);

/**
 * What Piper and Kokoro share: one worker thread per model, presets, espeak-ng phonemes, and the
 * mapping of prosody. The core has already split sentences, parsed tags (pauses are silence it
 * inserts) and normalized the text; here:
 * - rate -> the model's own duration knob (Piper length scale, Kokoro speed);
 * - pitch -> rendered 1/pitch slower, then played back `pitch` times faster (the same resampling
 *   shift Flite's voices use), so duration is kept and pitch and formants move by `pitch`;
 * - volume -> gain (after Piper's per-sentence peak normalization, for Piper voices); pitch range
 *   has no knob on these models and is not applied;
 * - word timings from per-token durations when the model outputs them, else by token share aligned
 *   to the audio's voiced span and pauses.
 */
export abstract class NeuralSpeechSynthesizer<V extends NeuralVoice> implements NeuralEngine {
  abstract readonly engine: string;
  /** How the model family is named in warnings (`not a Piper model: ...`). */
  protected abstract readonly family: string;
  private readonly presets: PresetVoice[] = [];
  private readonly byPreset = new Map<string, V>();
  private readonly models: OnnxModelThread[] = [];
  private closed = false;

  protected constructor(private readonly phonemizer: EspeakPhonemizer) {
    phonemizer.retain();
  }

  /** The tensors for one sentence at a model speaking rate (1 = as trained). */
  protected abstract prepare(voice: V, words: PhonemizedWord[], rate: number): Promise<NeuralInference> | NeuralInference;

  /**
   * Starts a model's thread and checks it has the inputs this engine feeds; a model that fails is
   * reported through onSkipped and null is returned.
   */
  protected async startModel(
    name: string,
    modelPath: string,
    requiredInputs: string[],
    options: NeuralEngineOptions,
  ): Promise<OnnxModelThread | null> {
    let model: OnnxModelThread;
    try {
      model = await OnnxModelThread.start(this.engine, name, modelPath, options.threads ?? 1);
    } catch (error) {
      const reason = (error as Error).message.replace(/^.*failed to start: /, '').split('\n')[0];
      options.onSkipped?.(name, `onnxruntime cannot load it: ${reason}`);
      return null;
    }
    const missing = requiredInputs.filter((i) => !model.info.inputNames.includes(i));
    if (missing.length > 0 || model.info.outputNames.length === 0) {
      options.onSkipped?.(name, `not a ${this.family} model: missing inputs ${missing.join(', ') || '(none)'}`);
      await model.close();
      return null;
    }
    this.models.push(model);
    return model;
  }

  /** Adds a preset (the first model to claim a name keeps it). */
  protected addVoice(voice: V): void {
    if (this.byPreset.has(voice.preset.name)) return;
    this.presets.push(voice.preset);
    this.byPreset.set(voice.preset.name, voice);
  }

  protected voice(presetName: string): V | undefined {
    return this.byPreset.get(presetName);
  }

  voices(): PresetVoice[] {
    return [...this.presets];
  }

  loadedModels(): LoadedModel[] {
    return this.models.map((m) => ({ engine: this.engine, model: m.name, bytes: m.bytes }));
  }

  async synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    const voice = this.voice(request.voice.engineVoice);
    if (!voice) throw new Error(`${this.engine} has no voice '${request.voice.engineVoice}'`);
    signal?.throwIfAborted();
    const pitch = clamp(request.prosody.pitch, 0.5, 2);
    const rate = clamp(request.prosody.rate / pitch, 0.25, 4);
    const words = await this.phonemizer.phonemize(request.text, voice.espeakVoice, signal);
    const inference = await this.prepare(voice, words, rate);
    const output = { sampleRate: request.sampleRate, volume: request.prosody.volume, playbackRate: pitch };
    const { samples, durations } = await voice.model.run(
      { feeds: inference.feeds, nativeRate: inference.nativeRate, output, normalizePeak: inference.normalizePeak },
      signal,
    );
    const seconds = samples.length / request.sampleRate;
    return {
      samples,
      sampleRate: request.sampleRate,
      words: request.wordTimings
        ? neuralWordTimings(inference.wordSpans, inference.tokens, seconds, durations, { samples, sampleRate: request.sampleRate })
        : [],
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.models.splice(0).map((m) => m.close()), this.phonemizer.release()]);
  }
}
