import { basename } from 'node:path';
import { hubCallOptions, hubClient, hubError, listRepoFiles, ModelPullError, type HubConnection } from './hub-files.js';
import { KOKORO_UNSUPPORTED_LANGUAGES } from '../kokoro/kokoro-model.js';
import type { CatalogVariant } from './model-catalog.js';

/** The files to take from a repository that is not in the catalog, by the layout it has. */
export interface RepoLayout {
  layout: 'directory' | 'piper';
  paths: string[];
  /** A Piper voice is named by its file; directories by the repository (or --name). */
  name?: string;
}

const VARIANT_SUFFIX: Record<CatalogVariant, string> = { fp32: '', quantized: '_quantized' };

/** A model file and the external data files the repository has beside it (`NAME.onnx_data`, `NAME.onnx_data_1`, ...): every fp32 export over 2 GB has them. */
export function withExternalData(path: string, repoFiles: readonly string[]): string[] {
  return [path, ...repoFiles.filter((f) => f.startsWith(`${path}_data`))];
}

/**
 * Recognises the layouts the model directory loads (model-directory.ts): a transformers.js
 * speech-to-text export (config.json of model_type whisper or moonshine, onnx/encoder_model and
 * onnx/decoder_model_merged of the variant, with any external data files), a Kokoro ONNX export
 * (voices/*.bin and onnx/model of the variant; voices of languages the engine skips are not taken),
 * or a single Piper voice (NAME.onnx with NAME.onnx.json). Anything else is refused, saying what was looked for.
 */
export async function recognizeRepoLayout(
  repo: string,
  commit: string,
  hub: HubConnection,
  variant: CatalogVariant = 'fp32',
): Promise<RepoLayout> {
  const files = (await listRepoFiles(repo, commit, hub)).map((f) => f.path);
  const has = new Set(files);
  const suffix = VARIANT_SUFFIX[variant];
  const withData = (path: string) => withExternalData(path, files);

  const encoder = `onnx/encoder_model${suffix}.onnx`;
  const decoder = `onnx/decoder_model_merged${suffix}.onnx`;
  if (has.has('config.json') && has.has(encoder) && has.has(decoder)) {
    const modelType = await configModelType(repo, commit, hub);
    if (modelType !== 'whisper' && modelType !== 'moonshine')
      throw new ModelPullError(
        'layout',
        `${repo}: config.json says model_type ${JSON.stringify(modelType)}; only whisper and moonshine recognizers are supported`,
      );
    const configs = ['config.json', 'generation_config.json', 'preprocessor_config.json', 'tokenizer.json', 'tokenizer_config.json'].filter(
      (f) => has.has(f),
    );
    return { layout: 'directory', paths: [...configs, ...withData(encoder), ...withData(decoder)] };
  }
  const voices = files.filter((f) => /^voices\/[^/]+\.bin$/.test(f));
  const kokoroModel = [`onnx/model${suffix}.onnx`, `model${suffix}.onnx`].find((f) => has.has(f));
  if (voices.length > 0 && kokoroModel && (has.has('tokenizer.json') || has.has('config.json'))) {
    const usable = voices.filter((v) => !(basename(v)[0]! in KOKORO_UNSUPPORTED_LANGUAGES));
    return {
      layout: 'directory',
      paths: [...['config.json', 'tokenizer.json'].filter((f) => has.has(f)), ...withData(kokoroModel), ...usable],
    };
  }
  const piperVoices = files.filter((f) => f.endsWith('.onnx') && has.has(`${f}.json`));
  if (piperVoices.length === 1)
    return { layout: 'piper', paths: [piperVoices[0]!, `${piperVoices[0]}.json`], name: basename(piperVoices[0]!, '.onnx') };
  if (piperVoices.length > 1)
    throw new ModelPullError(
      'layout',
      `${repo} holds ${piperVoices.length} Piper voices (${piperVoices.slice(0, 5).join(', ')}...): pull one from the catalog, or download it and use models add`,
    );
  throw new ModelPullError(
    'layout',
    `${repo}@${commit.slice(0, 12)} is not a layout this service loads: expected config.json + ${encoder} + ${decoder} (Whisper / Moonshine), voices/*.bin + onnx/model${suffix}.onnx (Kokoro) or one NAME.onnx + NAME.onnx.json (Piper)`,
  );
}

async function configModelType(repo: string, commit: string, hub: HubConnection): Promise<unknown> {
  try {
    // The hub client loads on the first pull, never at start (docs/deployment.md, Memory and warm-up).
    const { downloadFile } = await hubClient();
    const blob = await downloadFile({ repo, path: 'config.json', revision: commit, ...hubCallOptions(hub), xet: false });
    return blob ? (JSON.parse(await blob.text()) as { model_type?: unknown }).model_type : undefined;
  } catch (error) {
    throw error instanceof SyntaxError
      ? new ModelPullError('layout', `${repo}: config.json is not JSON`)
      : hubError(error, `${repo}/config.json`);
  }
}
