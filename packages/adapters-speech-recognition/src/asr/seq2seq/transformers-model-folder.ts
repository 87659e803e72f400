import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { externalDataFiles } from '@svc/adapters-runtime';
import { TokenDecoder } from './token-decoder.js';
import { whisperLanguageTokens } from '../whisper/whisper-prompt.js';

/** The speech-to-text model families read from the transformers.js ONNX layout. */
export type Seq2SeqFamily = 'whisper' | 'moonshine';

/**
 * The quantized variants transformers.js exports beside the fp32 files, in the order they are
 * preferred (fp32 first: the most accurate where it fits). fp16 is not listed: its tensors would
 * have to be float16 on the way in.
 */
export const ONNX_VARIANTS = ['', '_quantized', '_int8', '_uint8', '_q4', '_bnb4'] as const;

/** One model folder in the layout of the transformers.js ONNX exports (onnx-community / Xenova repos). */
export interface TransformersAsrModel {
  dir: string;
  family: Seq2SeqFamily;
  config: Record<string, unknown>;
  generation: Record<string, unknown>;
  tokens: TokenDecoder;
  encoderPath: string;
  /** `decoder_model_merged` (one graph, `use_cache_branch` picks the path) or the two-graph pair. */
  decoder: { merged: string } | { first: string; withPast: string };
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

async function readJson(path: string, required: boolean): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    if (!required) return {};
    throw new Error(`${path} is missing`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`${path} is not valid JSON (${(error as Error).message})`);
  }
}

/** True when the folder looks like a transformers.js speech-to-text export (config.json + onnx/). */
export async function isTransformersAsrLayout(dir: string): Promise<boolean> {
  if (!(await isFile(join(dir, 'config.json'))) || !(await stat(join(dir, 'onnx')).catch(() => null))) return false;
  const config = await readJson(join(dir, 'config.json'), true).catch(() => ({}) as Record<string, unknown>);
  return config.model_type === 'whisper' || config.model_type === 'moonshine';
}

async function firstVariant(dir: string, base: string): Promise<string | null> {
  for (const variant of ONNX_VARIANTS) {
    const path = join(dir, 'onnx', `${base}${variant}.onnx`);
    if (await isFile(path)) return path;
  }
  return null;
}

/**
 * Reads a model folder: config.json (model_type whisper or moonshine), generation_config.json,
 * tokenizer.json, onnx/encoder_model*.onnx and a decoder (merged, or decoder_model +
 * decoder_with_past_model). Anything missing is an error naming the path that was expected.
 */
export async function readTransformersAsrModel(dir: string): Promise<TransformersAsrModel> {
  if (!(await stat(dir).catch(() => null))?.isDirectory()) throw new Error(`speech recognition model folder ${dir} does not exist`);
  const config = await readJson(join(dir, 'config.json'), true);
  const family = config.model_type;
  if (family !== 'whisper' && family !== 'moonshine') {
    throw new Error(
      `${join(dir, 'config.json')}: model_type ${JSON.stringify(family)} is not a supported recognizer (whisper or moonshine)`,
    );
  }
  const generation = await readJson(join(dir, 'generation_config.json'), true);
  const tokenizerPath = join(dir, 'tokenizer.json');
  const tokens = new TokenDecoder(await readJson(tokenizerPath, true), tokenizerPath);
  const onnxDir = join(dir, 'onnx');
  const variants = ONNX_VARIANTS.map((v) => `${v || '(fp32)'}`).join(', ');
  const encoderPath = await firstVariant(dir, 'encoder_model');
  if (!encoderPath) throw new Error(`${join(onnxDir, 'encoder_model.onnx')} is missing (nor any variant: ${variants})`);
  const merged = await firstVariant(dir, 'decoder_model_merged');
  if (merged) return { dir, family, config, generation, tokens, encoderPath, decoder: { merged } };
  const first = await firstVariant(dir, 'decoder_model');
  const withPast = await firstVariant(dir, 'decoder_with_past_model');
  if (!first || !withPast) {
    throw new Error(
      `${join(onnxDir, 'decoder_model_merged.onnx')} is missing, and so is ${first ? join(onnxDir, 'decoder_with_past_model.onnx') : join(onnxDir, 'decoder_model.onnx')} (a decoder is needed: merged, or decoder_model + decoder_with_past_model)`,
    );
  }
  return { dir, family, config, generation, tokens, encoderPath, decoder: { first, withPast } };
}

/** The languages a model decodes: Whisper's language tokens (English for .en models); Moonshine's one. */
export function asrModelLanguages(model: TransformersAsrModel): string[] {
  if (model.family === 'moonshine') return [typeof model.config.language === 'string' ? model.config.language : 'en'];
  const codes = [...whisperLanguageTokens(model.generation, model.tokens).keys()];
  return codes.length > 0 ? codes : ['en'];
}

/** The files a model uses, relative to its folder (what the manifest lists), external weight files included. */
export async function asrModelFiles(model: TransformersAsrModel): Promise<string[]> {
  const decoders = 'merged' in model.decoder ? [model.decoder.merged] : [model.decoder.first, model.decoder.withPast];
  const graphs: string[] = [];
  for (const path of [model.encoderPath, ...decoders]) {
    const relative = path.slice(model.dir.length + 1);
    graphs.push(relative, ...(await externalDataFiles(path)).map((f) => join(dirname(relative), f)));
  }
  return ['config.json', 'generation_config.json', 'tokenizer.json', ...graphs];
}
