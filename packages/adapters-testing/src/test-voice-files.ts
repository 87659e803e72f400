import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kokoroTestModel, piperTestModel } from './test-voice-models.js';

export interface PiperTestConfigOptions {
  sampleRate?: number;
  speakers?: string[];
  lengthScale?: number;
  /** inference.noise_scale (default 0.667; the test model's amplitude is half of it). */
  noiseScale?: number;
  /** espeak-ng voice (default `en-us`) and language code (default `en_US`). */
  espeakVoice?: string;
  languageCode?: string;
  /** Symbols added to the id map after the default ones (their ids follow), e.g. Piper's punctuation. */
  extraPhonemes?: string[];
  /** piper1-gpl's `vowel_clusters` (each cluster's concatenation is added to the id map). */
  vowelClusters?: string[][];
}

/** Symbols every published Piper voice's id map has besides letters: its punctuation (piper-phonemize's default map). */
export const PIPER_PUNCTUATION = ['!', "'", '(', ')', ',', '-', '.', ':', ';', '?'];

/**
 * A Piper voice config in the format Piper publishes (`NAME.onnx.json`: audio.sample_rate,
 * espeak.voice, inference.{noise_scale,length_scale,noise_w}, phoneme_type, phoneme_id_map with
 * `_` pad, `^` bos, `$` eos, num_speakers, speaker_id_map, language.code), with a small id map.
 */
export function piperConfigJson(options: PiperTestConfigOptions = {}) {
  const clusters = options.vowelClusters ?? [];
  const phonemes = [
    ...new Set([
      '_',
      '^',
      '$',
      ' ',
      'h',
      'ə',
      'l',
      'ˈ',
      'o',
      'ʊ',
      'w',
      'ɜ',
      'ː',
      'd',
      'ɛ',
      's',
      't',
      'ɪ',
      'ð',
      'z',
      'ɐ',
      'n',
      'i',
      'k',
      'æ',
      'ɹ',
      'a',
      'e',
      'm',
      'ʌ',
      ...(options.extraPhonemes ?? []),
      ...clusters.map((c) => c.join('')),
    ]),
  ];
  const phoneme_id_map: Record<string, number[]> = {};
  phonemes.forEach((p, i) => (phoneme_id_map[p] = [i]));
  const speakers = options.speakers ?? [];
  return {
    audio: { sample_rate: options.sampleRate ?? 22050, quality: 'medium' },
    espeak: { voice: options.espeakVoice ?? 'en-us' },
    language: { code: options.languageCode ?? 'en_US' },
    inference: { noise_scale: options.noiseScale ?? 0.667, length_scale: options.lengthScale ?? 1, noise_w: 0.8 },
    phoneme_type: 'espeak',
    phoneme_map: {},
    phoneme_id_map,
    num_symbols: phonemes.length,
    num_speakers: Math.max(1, speakers.length),
    speaker_id_map: Object.fromEntries(speakers.map((s, i) => [s, i])),
    piper_version: '1.0.0',
    ...(clusters.length > 0 ? { vowel_clusters: clusters } : {}),
  };
}

/** Writes `NAME.onnx` (a test-built Piper-shaped model) and `NAME.onnx.json` into dir. */
export async function writePiperVoice(dir: string, name: string, options: PiperTestConfigOptions & { hop?: number } = {}): Promise<void> {
  await mkdir(dir, { recursive: true });
  const sampleRate = options.sampleRate ?? 22050;
  await writeFile(
    join(dir, `${name}.onnx`),
    piperTestModel({ sampleRate, multiSpeaker: (options.speakers?.length ?? 0) > 1, hop: options.hop }),
  );
  await writeFile(join(dir, `${name}.onnx.json`), JSON.stringify(piperConfigJson(options)));
}

/** Writes a Kokoro directory in its ONNX community layout: onnx/model_quantized.onnx, voices/*.bin, tokenizer.json. */
export async function writeKokoroModel(
  dir: string,
  voices: Record<string, (row: number) => number>,
  options: { durations?: boolean; hop?: number; extraSymbols?: string[] } = {},
): Promise<Record<string, number>> {
  await mkdir(join(dir, 'onnx'), { recursive: true });
  await mkdir(join(dir, 'voices'), { recursive: true });
  await writeFile(join(dir, 'onnx', 'model_quantized.onnx'), kokoroTestModel(options));
  const symbols = [
    ...new Set([
      '$',
      ' ',
      'h',
      'ə',
      'l',
      'ˈ',
      'o',
      'ʊ',
      'w',
      'ɜ',
      'ː',
      'd',
      'ɛ',
      's',
      't',
      'ɪ',
      'ð',
      'z',
      'ɐ',
      'n',
      'i',
      'k',
      'æ',
      'ɹ',
      'a',
      'e',
      'm',
      'ʌ',
      ...(options.extraSymbols ?? []),
    ]),
  ];
  const vocab = Object.fromEntries(symbols.map((s, i) => [s, i]));
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify({ model: { type: 'WordLevel', vocab } }));
  for (const [voice, value] of Object.entries(voices)) {
    // float32 [510, 1, 256]; every value of row r is value(r), so the row used shows in the audio
    const styles = new Float32Array(510 * 256);
    for (let r = 0; r < 510; r++) styles.fill(value(r), r * 256, (r + 1) * 256);
    await writeFile(join(dir, 'voices', `${voice}.bin`), new Uint8Array(styles.buffer));
  }
  return vocab;
}
