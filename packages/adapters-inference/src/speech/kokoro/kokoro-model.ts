import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

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

/** Kokoro voice prefixes (lang code letter) -> language tag and espeak-ng voice to phonemize with. */
export const KOKORO_LANGUAGES: Record<string, { language: string; espeak: string }> = {
  a: { language: 'en-us', espeak: 'en-us' },
  b: { language: 'en-gb', espeak: 'en-gb' },
  e: { language: 'es', espeak: 'es' },
  f: { language: 'fr', espeak: 'fr-fr' },
  h: { language: 'hi', espeak: 'hi' },
  i: { language: 'it', espeak: 'it' },
  p: { language: 'pt-br', espeak: 'pt-br' },
  z: { language: 'zh', espeak: 'cmn' },
};

export interface KokoroVoiceFile {
  /** File name without `.bin`, e.g. `af_heart`. */
  name: string;
  path: string;
  language: string;
  espeakVoice: string;
}

export interface KokoroModel {
  name: string;
  modelPath: string;
  voices: KokoroVoiceFile[];
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
  for (const file of (await readdir(join(dir, 'voices'))).sort()) {
    if (!file.endsWith('.bin')) continue;
    const voice = file.slice(0, -'.bin'.length);
    const lang = KOKORO_LANGUAGES[voice[0] ?? ''];
    if (!lang) continue; // a language this service cannot phonemize for Kokoro (e.g. Japanese)
    const path = join(dir, 'voices', file);
    const size = (await stat(path)).size;
    if (size === 0 || size % (KOKORO_STYLE_DIM * 4) !== 0) throw new Error(`voices/${file} is not a float32 [rows, 1, ${KOKORO_STYLE_DIM}] style file`);
    voices.push({ name: voice, path, language: lang.language, espeakVoice: lang.espeak });
  }
  if (voices.length === 0) throw new Error('voices/ has no usable .bin style file');
  return { name, modelPath, voices, vocab };
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
