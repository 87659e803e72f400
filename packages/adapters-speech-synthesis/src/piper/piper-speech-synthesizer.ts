import type { PhonemizedWord } from '../models/espeak-phonemizer.js';
import type { PiperModel } from '../models/model-directory.js';
import { float32Feed, int64Feed, type OnnxFeeds } from '../neural/onnx-model-job.js';
import {
  NeuralSpeechSynthesizer,
  type NeuralEngineOptions,
  type NeuralInference,
  type NeuralVoice,
} from '../neural/neural-speech-synthesizer.js';
import { piperPhonemeIds, type PiperVoiceConfig } from './piper-voice-config.js';

export interface PiperSpeechSynthesizerOptions extends NeuralEngineOptions {
  models: PiperModel[];
}

/** The preset name a Piper voice gets: `piper-` + the file name without `.onnx`, lower case. */
export function piperPresetName(modelName: string, speaker?: string): string {
  return `piper-${modelName.toLowerCase()}${speaker ? `-${speaker.toLowerCase()}` : ''}`;
}

/** Inputs a Piper export takes (piper's export_onnx); checked once so a different model is skipped at start-up. */
const REQUIRED_INPUTS = ['input', 'input_lengths', 'scales'];

interface PiperVoice extends NeuralVoice {
  config: PiperVoiceConfig;
  speakerId?: number;
  hasSid: boolean;
}

/** The tensors of one Piper inference: a faster rate is a shorter length scale; noise scales as the config sets them. */
export function piperFeeds(
  ids: number[],
  config: PiperVoiceConfig,
  rate: number,
  speakerId: number | undefined,
  hasSid: boolean,
): OnnxFeeds {
  const feeds: OnnxFeeds = {
    input: int64Feed(ids),
    input_lengths: int64Feed([ids.length], [1]),
    scales: float32Feed([config.noiseScale, config.lengthScale / rate, config.noiseW], [3]),
  };
  if (hasSid) feeds.sid = int64Feed([speakerId ?? 0], [1]);
  return feeds;
}

/**
 * Piper (VITS) voices: espeak-ng phonemes -> ids (the config's phoneme_id_map) -> one inference per
 * sentence in the model's worker thread -> audio peak-normalized per sentence as Piper does, at the
 * voice's rate, resampled to the request's.
 */
export class PiperSpeechSynthesizer extends NeuralSpeechSynthesizer<PiperVoice> {
  readonly engine = 'piper';
  protected readonly family = 'Piper';

  static async create(options: PiperSpeechSynthesizerOptions): Promise<PiperSpeechSynthesizer> {
    const synth = new PiperSpeechSynthesizer(options.phonemizer);
    for (const model of options.models) {
      const thread = await synth.startModel(model.manifest.name, model.modelPath, REQUIRED_INPUTS, options);
      if (thread) synth.addVoices(model, thread);
    }
    return synth;
  }

  private addVoices(model: PiperModel, thread: NeuralVoice['model']): void {
    const { config } = model;
    const hasSid = thread.info.inputNames.includes('sid');
    const speakers = hasSid && config.numSpeakers > 1 ? Object.entries(config.speakerIds) : [];
    const entries: [string | undefined, number | undefined][] = speakers.length > 0 ? speakers : [[undefined, undefined]];
    for (const [speaker, speakerId] of entries) {
      const name = piperPresetName(model.manifest.name, speaker);
      this.addVoice({
        preset: {
          name,
          engine: this.engine,
          engineVoice: name,
          language: config.language,
          gender: 'neutral',
          description: `Piper neural voice ${model.manifest.name}${speaker ? ` (speaker ${speaker})` : ''}, ${config.sampleRate} Hz`,
        },
        model: thread,
        espeakVoice: config.espeakVoice,
        config,
        speakerId,
        hasSid,
      });
    }
  }

  protected prepare(voice: PiperVoice, words: PhonemizedWord[], rate: number): NeuralInference {
    const { ids, wordSpans } = piperPhonemeIds(words, voice.config);
    return {
      feeds: piperFeeds(ids, voice.config, rate, voice.speakerId, voice.hasSid),
      nativeRate: voice.config.sampleRate,
      tokens: ids.length,
      wordSpans,
      normalizePeak: true,
    };
  }
}
