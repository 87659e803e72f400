import type { PresetVoice } from '@svc/core';
import type { PhonemizedWord } from '../models/espeak-phonemizer.js';
import { float32Feed, int64Feed, type OnnxFeeds } from '../neural/onnx-model-job.js';
import {
  NeuralSpeechSynthesizer,
  type NeuralEngineOptions,
  type NeuralInference,
  type NeuralVoice,
} from '../neural/neural-speech-synthesizer.js';
import { blendStyles, parseKokoroBlend } from './kokoro-blend.js';
import { kokoroWordSymbols, type KokoroEnglishG2P, type KokoroLanguage } from './kokoro-phonemes.js';
import {
  KOKORO_MAX_TOKENS,
  KOKORO_SAMPLE_RATE,
  KOKORO_STYLE_DIM,
  kokoroStyleRow,
  readKokoroStyles,
  type KokoroModel,
  type KokoroVoiceFile,
} from './kokoro-model.js';

export interface KokoroSpeechSynthesizerOptions extends NeuralEngineOptions {
  models: KokoroModel[];
  /** How English is spelled for the model (kokoro-phonemes.ts; default kokoro-js). */
  englishG2P?: KokoroEnglishG2P;
}

export const KOKORO_PRESET_PREFIX = 'kokoro-';

/** Preset name of a Kokoro voice: `kokoro-` + the style file name (`af_heart` -> `kokoro-af_heart`). */
export function kokoroPresetName(voice: string): string {
  return `${KOKORO_PRESET_PREFIX}${voice.toLowerCase()}`;
}

const REQUIRED_INPUTS = ['input_ids', 'style', 'speed'];

interface KokoroVoice extends NeuralVoice {
  vocab: Map<string, number>;
  /** Style files and their weights (one part of weight 1 for a plain voice). */
  parts: { file: KokoroVoiceFile; weight: number }[];
  styles?: Float32Array;
}

/**
 * Phonemes to Kokoro tokens (kokoro-phonemes.ts; symbols missing from the vocab dropped) with word
 * spans (a word's span ends after the punctuation and space that follow it), pad 0 at both ends. At most 510 symbols between the pads, spaces and punctuation included
 * (the model's 512): the words that do not fit are left out whole.
 */
export function kokoroInputIds(
  words: PhonemizedWord[],
  vocab: Map<string, number>,
  language: KokoroLanguage,
  englishG2P: KokoroEnglishG2P = 'kokoro-js',
) {
  const ids: number[] = [0];
  const wordSpans: { word: string; start: number; end: number }[] = [];
  for (const [i, w] of words.entries()) {
    const wordIds: number[] = [];
    for (const symbol of kokoroWordSymbols(w, language, i === words.length - 1, englishG2P)) {
      const id = vocab.get(symbol);
      if (id !== undefined) wordIds.push(id);
    }
    const room = KOKORO_MAX_TOKENS - (ids.length - 1);
    if (wordIds.length > room) {
      // Only a first word longer than the whole limit is cut; otherwise what does not fit is left out.
      if (i === 0) {
        ids.push(...wordIds.slice(0, room));
        wordSpans.push({ word: w.word, start: 1, end: ids.length });
      }
      break;
    }
    const start = ids.length;
    ids.push(...wordIds);
    wordSpans.push({ word: w.word, start, end: ids.length });
  }
  ids.push(0);
  return { ids, wordSpans };
}

/** The tensors of one Kokoro inference; the style row is chosen by the token count without pads. */
export function kokoroFeeds(ids: number[], styles: Float32Array, speed: number): OnnxFeeds {
  return {
    input_ids: int64Feed(ids),
    style: float32Feed(kokoroStyleRow(styles, ids.length - 2), [1, KOKORO_STYLE_DIM]),
    speed: float32Feed([speed], [1]),
  };
}

const genderOf = (voice: string): PresetVoice['gender'] => (voice[1] === 'm' ? 'male' : voice[1] === 'f' ? 'female' : 'neutral');

/**
 * Kokoro-82M: one worker thread per model, 24 kHz output resampled to the request's rate. Besides
 * its presets it speaks blends of voices of the same model (see kokoro-blend.ts), resolved by name.
 */
export class KokoroSpeechSynthesizer extends NeuralSpeechSynthesizer<KokoroVoice> {
  readonly engine = 'kokoro';
  protected readonly family = 'Kokoro';
  private readonly blends = new Map<string, KokoroVoice>();
  private static readonly MAX_CACHED_BLENDS = 64;

  private englishG2P: KokoroEnglishG2P = 'kokoro-js';

  static async create(options: KokoroSpeechSynthesizerOptions): Promise<KokoroSpeechSynthesizer> {
    const synth = new KokoroSpeechSynthesizer(options.phonemizer);
    synth.englishG2P = options.englishG2P ?? 'kokoro-js';
    for (const model of options.models) {
      const thread = await synth.startModel(model.name, model.modelPath, REQUIRED_INPUTS, options);
      if (!thread) continue;
      for (const file of model.voices) {
        const name = kokoroPresetName(file.name);
        synth.addVoice({
          preset: {
            name,
            engine: 'kokoro',
            engineVoice: name,
            language: file.language,
            gender: genderOf(file.name),
            description: `Kokoro neural voice ${file.name} (${model.name}), 24 kHz`,
          },
          model: thread,
          espeakVoice: file.espeakVoice,
          vocab: model.vocab,
          parts: [{ file, weight: 1 }],
        });
      }
    }
    return synth;
  }

  /** A preset, or a blend such as `kokoro-af_bella*0.7+af_sky*0.3` of voices of one model; undefined when any part is unknown. */
  resolveVoice(name: string): PresetVoice | undefined {
    return this.voice(name.toLowerCase())?.preset;
  }

  protected override voice(presetName: string): KokoroVoice | undefined {
    return super.voice(presetName) ?? this.blend(presetName.toLowerCase());
  }

  private blend(name: string): KokoroVoice | undefined {
    const cached = this.blends.get(name);
    if (cached) return cached;
    if (!name.startsWith(KOKORO_PRESET_PREFIX)) return undefined;
    const parts = parseKokoroBlend(name.slice(KOKORO_PRESET_PREFIX.length));
    if (!parts) return undefined;
    const voices = parts.map((p) => super.voice(kokoroPresetName(p.voice)));
    if (!voices.every((v): v is KokoroVoice => v !== undefined)) return undefined;
    const first = voices[0]!;
    if (voices.some((v) => v.model !== first.model)) return undefined; // styles of different models do not mix
    const label = parts.map((p) => `${p.voice} ${Math.round(p.weight * 100)} %`).join(' + ');
    const blended: KokoroVoice = {
      ...first,
      preset: {
        ...first.preset,
        name,
        engineVoice: name,
        gender: voices.every((v) => v.preset.gender === first.preset.gender) ? first.preset.gender : 'neutral',
        description: `Kokoro blend: ${label}`,
      },
      parts: parts.map((p, i) => ({ file: voices[i]!.parts[0]!.file, weight: p.weight })),
      styles: undefined,
    };
    if (this.blends.size >= KokoroSpeechSynthesizer.MAX_CACHED_BLENDS) this.blends.delete(this.blends.keys().next().value!);
    this.blends.set(name, blended);
    return blended;
  }

  protected async prepare(voice: KokoroVoice, words: PhonemizedWord[], rate: number): Promise<NeuralInference> {
    // Style files are read on first use (each is ~0.5 MB) and kept.
    voice.styles ??= await this.styles(voice);
    const { ids, wordSpans } = kokoroInputIds(words, voice.vocab, voice.parts[0]!.file.lang, this.englishG2P);
    return { feeds: kokoroFeeds(ids, voice.styles, rate), nativeRate: KOKORO_SAMPLE_RATE, tokens: ids.length, wordSpans };
  }

  private async styles(voice: KokoroVoice): Promise<Float32Array> {
    const tables = await Promise.all(voice.parts.map(async (p) => ({ styles: await this.plainStyles(p.file), weight: p.weight })));
    return tables.length === 1 && tables[0]!.weight === 1 ? tables[0]!.styles : blendStyles(tables);
  }

  private async plainStyles(file: KokoroVoiceFile): Promise<Float32Array> {
    const plain = super.voice(kokoroPresetName(file.name));
    if (plain) return (plain.styles ??= await readKokoroStyles(file.path));
    return readKokoroStyles(file.path);
  }
}
