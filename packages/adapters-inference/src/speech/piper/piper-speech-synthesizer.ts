import { readFile } from 'node:fs/promises';
import { loadVoiceModelSession } from '../models/onnx-session.js';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import type { PresetVoice, SpeechSynthesizer, SynthesisRequest, SynthesisResult, WordTiming } from '@svc/core';
import { applyGain } from '../pcm-gain.js';
import { SpeexResampler } from '../speex-resampler.js';
import type { EspeakPhonemizer } from '../models/espeak-phonemizer.js';
import type { PiperModel } from '../models/model-directory.js';
import { piperPhonemeIds, type PiperVoiceConfig } from './piper-voice-config.js';

export interface PiperSpeechSynthesizerOptions {
  models: PiperModel[];
  phonemizer: EspeakPhonemizer;
  /** onnxruntime intra-op threads per session. */
  threads?: number;
  /**
   * Called for a model whose session cannot be created (a corrupt .onnx or a wrong signature):
   * the model is skipped, the others still load.
   */
  onSkipped?: (name: string, reason: string) => void;
}

/** The preset name a Piper voice gets: `piper-` + the file name without `.onnx`, lower case. */
export function piperPresetName(modelName: string, speaker?: string): string {
  return `piper-${modelName.toLowerCase()}${speaker ? `-${speaker.toLowerCase()}` : ''}`;
}

/** Inputs a Piper export takes (piper's export_onnx); checked once so a different model is skipped at start-up. */
const REQUIRED_INPUTS = ['input', 'input_lengths', 'scales'];

interface LoadedVoice {
  model: PiperModel;
  session: InferenceSession;
  speakerId?: number;
  hasSid: boolean;
}

/** Builds the tensors of one Piper inference (exported for tests). */
export function piperFeeds(ids: number[], config: PiperVoiceConfig, rate: number, speakerId: number | undefined, hasSid: boolean): Record<string, Tensor> {
  const feeds: Record<string, Tensor> = {
    input: new Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
    input_lengths: new Tensor('int64', BigInt64Array.of(BigInt(ids.length)), [1]),
    // A faster rate is a shorter length scale; noise scales as the voice's config sets them.
    scales: new Tensor('float32', Float32Array.of(config.noiseScale, config.lengthScale / rate, config.noiseW), [3]),
  };
  if (hasSid) feeds.sid = new Tensor('int64', BigInt64Array.of(BigInt(speakerId ?? 0)), [1]);
  return feeds;
}

/**
 * Piper (VITS) voices through onnxruntime: espeak-ng phonemes -> ids -> one inference per sentence
 * (the core splits sentences) -> float audio at the voice's rate, resampled to the request's rate.
 * One session per model, created at start-up and reused.
 */
export class PiperSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine = 'piper';
  private readonly presets: PresetVoice[] = [];
  private readonly byPreset = new Map<string, LoadedVoice>();

  private constructor(
    private readonly phonemizer: EspeakPhonemizer,
    private readonly resampler: SpeexResampler,
    private readonly sessions: InferenceSession[],
  ) {}

  static async create(options: PiperSpeechSynthesizerOptions): Promise<PiperSpeechSynthesizer> {
    const sessions: InferenceSession[] = [];
    const synth = new PiperSpeechSynthesizer(options.phonemizer, await SpeexResampler.create(), sessions);
    for (const model of options.models) {
      let session: InferenceSession;
      try {
        session = await loadVoiceModelSession(model.modelPath, options.threads);
      } catch (error) {
        options.onSkipped?.(model.manifest.name, `onnxruntime cannot load it: ${(error as Error).message.split('\n')[0]}`);
        continue;
      }
      const missing = REQUIRED_INPUTS.filter((i) => !session.inputNames.includes(i));
      if (missing.length > 0 || session.outputNames.length === 0) {
        options.onSkipped?.(model.manifest.name, `not a Piper model: missing inputs ${missing.join(', ') || '(none)'}`);
        await session.release();
        continue;
      }
      sessions.push(session);
      synth.addVoices(model, session);
    }
    return synth;
  }

  private addVoices(model: PiperModel, session: InferenceSession): void {
    const hasSid = session.inputNames.includes('sid');
    const speakers = hasSid && model.config.numSpeakers > 1 ? Object.entries(model.config.speakerIds) : [];
    const entries: [string | undefined, number | undefined][] = speakers.length > 0 ? speakers : [[undefined, undefined]];
    for (const [speaker, speakerId] of entries) {
      const name = piperPresetName(model.manifest.name, speaker);
      this.presets.push({
        name,
        engine: this.engine,
        engineVoice: name,
        language: model.config.language,
        gender: 'neutral',
        description: `Piper neural voice ${model.manifest.name}${speaker ? ` (speaker ${speaker})` : ''}, ${model.config.sampleRate} Hz`,
      });
      this.byPreset.set(name, { model, session, speakerId, hasSid });
    }
  }

  voices(): PresetVoice[] {
    return [...this.presets];
  }

  async synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    const voice = this.byPreset.get(request.voice.engineVoice);
    if (!voice) throw new Error(`piper has no voice '${request.voice.engineVoice}'`);
    signal?.throwIfAborted();
    const { config } = voice.model;
    const words = this.phonemizer.phonemize(request.text, config.espeakVoice);
    const { ids, wordSpans } = piperPhonemeIds(words, config);
    const rate = Math.min(4, Math.max(0.25, request.prosody.rate));
    const outputs = await voice.session.run(piperFeeds(ids, config, rate, voice.speakerId, voice.hasSid));
    signal?.throwIfAborted();
    const audio = outputs[voice.session.outputNames[0]!]!.data as Float32Array;
    const native = floatToInt16(audio);
    const samples = applyGain(this.resampler.resample(native, config.sampleRate, request.sampleRate), request.prosody.volume);
    const seconds = samples.length / request.sampleRate;
    return { samples, sampleRate: request.sampleRate, words: request.wordTimings ? estimateWordTimings(wordSpans, ids.length, seconds) : [] };
  }

  async close(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.release()));
    this.sessions.length = 0;
  }
}

export function floatToInt16(audio: Float32Array): Int16Array {
  const out = new Int16Array(audio.length);
  for (let i = 0; i < audio.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(audio[i]! * 32767)));
  return out;
}

/** The model gives no durations: words are timed in proportion to their share of the ids. */
export function estimateWordTimings(spans: { word: string; start: number; end: number }[], total: number, seconds: number): WordTiming[] {
  const perId = total > 0 ? seconds / total : 0;
  return spans.filter((s) => s.word).map((s) => ({ word: s.word, start: s.start * perId, end: s.end * perId }));
}
