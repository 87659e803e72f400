import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { modelDirectoryEntries, sha256File, type ModelManifest } from '@svc/adapters-runtime';
import {
  asrModelFiles,
  asrModelLanguages,
  isTransformersAsrLayout,
  readTransformersAsrModel,
  type TransformersAsrModel,
} from './transformers-model-folder.js';

/** The speech recognizers in the model directory (the voices are read by their own family's scan). */
export interface RecognitionModelScan {
  /** Whisper / Moonshine folders in the transformers.js ONNX layout (kind `asr`). */
  asr: { manifest: ModelManifest; model: TransformersAsrModel }[];
  /** One line per model that was skipped, saying why. */
  warnings: string[];
}

/**
 * Scans the model directory for recognizers: every sub-directory with a config.json of model_type
 * whisper or moonshine and an onnx/ folder (see transformers-model-folder.ts). A missing directory is
 * an empty scan; a broken or incomplete model is skipped with one warning.
 */
export async function scanRecognitionModels(dir: string): Promise<RecognitionModelScan> {
  const scan: RecognitionModelScan = { asr: [], warnings: [] };
  const entries = await modelDirectoryEntries(dir);
  for (const entry of entries) {
    const path = join(dir, entry);
    if ((await stat(path)).isDirectory() && (await isTransformersAsrLayout(path))) await scanAsrModel(scan, path, entry);
  }
  return scan;
}

async function scanAsrModel(scan: RecognitionModelScan, path: string, name: string): Promise<void> {
  try {
    const model = await readTransformersAsrModel(path);
    scan.asr.push({
      model,
      manifest: {
        name,
        kind: 'asr',
        engine: model.family,
        languages: asrModelLanguages(model),
        sampleRate: 16000,
        checksum: await sha256File(model.encoderPath),
        files: await asrModelFiles(model),
      },
    });
  } catch (error) {
    scan.warnings.push(`model ${name}: skipped, ${(error as Error).message}`);
  }
}
