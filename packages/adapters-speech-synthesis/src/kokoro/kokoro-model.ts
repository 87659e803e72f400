import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { KokoroLanguage } from './kokoro-phonemes.js';

// Kokoro-82M in the layout of its ONNX community export: a directory holding the model
// (`onnx/model.onnx` or a quantized variant such as `onnx/model_quantized.onnx`, or the same names at
// the top), `voices/*.bin` style files (float32 [510, 1, 256]: one style row per token count) and the
// tokenizer (`tokenizer.json` model.vocab, or a `config.json` vocab): IPA symbol -> id, `$` = pad 0.

export const KOKORO_SAMPLE_RATE = 24000;
export const KOKORO_STYLE_DIM = 256;
/** Tokens a single inference takes (the style file has one row per token count up to this). */
export const KOKORO_MAX_TOKENS = 510;
/** Preferred model files, best first (full precision before quantized). */
const MODEL_FILES = ['model.onnx', 'model_fp16.onnx', 'model_quantized.onnx', 'model_q8f16.onnx', 'model_uint8.onnx', 'model_q4.onnx'];

/**
 * Kokoro voice prefixes (lang code letter) -> language tag and espeak-ng voice to phonemize with
 * (kokoro-js's `en-us` / `en` for English; misaki's EspeakG2P languages for the others, by espeak's
 * voice names: `fr-fr` and `en-gb` are languages, the voices are `fr` and `en`).
 */
export const KOKORO_LANGUAGES: Record<KokoroLanguage, { language: string; espeak: string }> = {
  a: { language: 'en-us', espeak: 'en-us' },
  b: { language: 'en-gb', espeak: 'en' },
  e: { language: 'es', espeak: 'es' },
  f: { language: 'fr', espeak: 'fr' },
  h: { language: 'hi', espeak: 'hi' },
  i: { language: 'it', espeak: 'it' },
  p: { language: 'pt-br', espeak: 'pt-br' },
};

/** Voices Kokoro has that espeak-ng cannot phonemize the way they were trained: skipped, with why. */
export const KOKORO_UNSUPPORTED_LANGUAGES: Record<string, string> = {
  j: "Japanese, trained on misaki's Japanese G2P (pyopenjtalk), which has no Node port",
  z: "Mandarin, trained on misaki's Chinese G2P (pinyin with tone arrows), not espeak-ng IPA",
};

export interface KokoroVoiceFile {
  /** File name without `.bin`, e.g. `af_heart`. */
  name: string;
  path: string;
  language: string;
  espeakVoice: string;
  /** Kokoro's language letter (the name's first), which says how phonemes are spelled for it. */
  lang: KokoroLanguage;
}

export interface KokoroModel {
  name: string;
  modelPath: string;
  voices: KokoroVoiceFile[];
  /** Style files left out and why (a language espeak-ng cannot phonemize for Kokoro). */
  skipped: { voice: string; reason: string }[];
  vocab: Map<string, number>;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** True when a directory looks like a Kokoro export (it has a voices/ folder). */
export async function isKokoroLayout(dir: string): Promise<boolean> {
  return stat(join(dir, 'voices')).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** Reads a Kokoro directory; throws a one-line reason when something is missing or malformed. */
export async function readKokoroModel(dir: string, name: string): Promise<KokoroModel> {
  let modelPath: string | undefined;
  for (const file of MODEL_FILES) {
    for (const candidate of [join(dir, 'onnx', file), join(dir, file)]) {
      if (!modelPath && (await exists(candidate))) modelPath = candidate;
    }
  }
  if (!modelPath) throw new Error(`no model file (onnx/model.onnx or a quantized variant such as onnx/model_quantized.onnx)`);
  const vocab = await readVocab(dir);
  const voices: KokoroVoiceFile[] = [];
  const skipped: KokoroModel['skipped'] = [];
  for (const file of (await readdir(join(dir, 'voices'))).sort()) {
    if (!file.endsWith('.bin')) continue;
    const voice = file.slice(0, -'.bin'.length);
    const letter = voice[0] ?? '';
    const lang = KOKORO_LANGUAGES[letter as KokoroLanguage] as (typeof KOKORO_LANGUAGES)[KokoroLanguage] | undefined;
    if (!lang) {
      skipped.push({ voice, reason: KOKORO_UNSUPPORTED_LANGUAGES[letter] ?? `no Kokoro language '${letter}'` });
      continue;
    }
    const path = join(dir, 'voices', file);
    const size = (await stat(path)).size;
    if (size === 0 || size % (KOKORO_STYLE_DIM * 4) !== 0)
      throw new Error(`voices/${file} is not a float32 [rows, 1, ${KOKORO_STYLE_DIM}] style file`);
    voices.push({ name: voice, path, language: lang.language, espeakVoice: lang.espeak, lang: letter as KokoroLanguage });
  }
  if (voices.length === 0)
    throw new Error(
      `voices/ has no usable .bin style file${skipped.length > 0 ? ` (skipped: ${skipped.map((s) => `${s.voice}: ${s.reason}`).join('; ')})` : ''}`,
    );
  return { name, modelPath, voices, skipped, vocab };
}

async function readVocab(dir: string): Promise<Map<string, number>> {
  for (const [file, pick] of [
    ['tokenizer.json', (j: any) => j?.model?.vocab],
    ['config.json', (j: any) => j?.vocab],
  ] as const) {
    if (!(await exists(join(dir, file)))) continue;
    const vocab = pick(JSON.parse(await readFile(join(dir, file), 'utf8')));
    if (typeof vocab !== 'object' || vocab === null) throw new Error(`${file} has no vocab`);
    return new Map(Object.entries(vocab as Record<string, number>).filter(([, id]) => Number.isInteger(id)));
  }
  throw new Error('no tokenizer.json (or config.json with a vocab)');
}

/** Style rows of one voice file: row i is the style for an input of i tokens. */
export async function readKokoroStyles(path: string): Promise<Float32Array> {
  const bytes = await readFile(path);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The style row for `tokens` tokens (clamped to the rows the file has). */
export function kokoroStyleRow(styles: Float32Array, tokens: number): Float32Array {
  const rows = styles.length / KOKORO_STYLE_DIM;
  const row = Math.max(0, Math.min(rows - 1, tokens));
  return styles.subarray(row * KOKORO_STYLE_DIM, (row + 1) * KOKORO_STYLE_DIM);
}
