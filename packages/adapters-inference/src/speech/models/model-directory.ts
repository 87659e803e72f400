import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePiperVoiceConfig, type PiperVoiceConfig } from '../piper/piper-voice-config.js';
import {
  asrModelFiles,
  asrModelLanguages,
  isTransformersAsrLayout,
  readTransformersAsrModel,
  type TransformersAsrModel,
} from '../../asr/seq2seq/transformers-model-folder.js';
import { isKokoroLayout, KOKORO_SAMPLE_RATE, readKokoroModel, type KokoroModel } from '../kokoro/kokoro-model.js';

/** What the service knows about one model found in the model directory. */
export interface ModelManifest {
  /** Directory-unique name; Piper `en_US-lessac-medium.onnx` -> `en_US-lessac-medium`. */
  name: string;
  kind: 'tts' | 'asr';
  engine: 'piper' | 'kokoro' | 'whisper' | 'moonshine';
  languages: string[];
  sampleRate: number;
  /** sha256 of the .onnx file (a recognizer's: its encoder), hex. */
  checksum: string;
  files: string[];
}

export interface PiperModel {
  manifest: ModelManifest;
  modelPath: string;
  config: PiperVoiceConfig;
}

export interface ModelScan {
  piper: PiperModel[];
  kokoro: { manifest: ModelManifest; model: KokoroModel }[];
  /** Whisper / Moonshine folders in the transformers.js ONNX layout (kind `asr`). */
  asr: { manifest: ModelManifest; model: TransformersAsrModel }[];
  /** One line per model that was skipped, saying why. */
  warnings: string[];
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Scans the model directory: every `NAME.onnx` with a `NAME.onnx.json` beside it is a Piper voice.
 * Every sub-directory with a voices/ folder is a Kokoro export (see kokoro-model.ts); its name is the
 * directory's. Every sub-directory with a config.json of model_type whisper or moonshine and an onnx/
 * folder is a speech recognizer (see transformers-model-folder.ts). A missing directory is an empty scan; a broken or incomplete model is skipped with one warning.
 */
export async function scanModelDirectory(dir: string): Promise<ModelScan> {
  const scan: ModelScan = { piper: [], kokoro: [], asr: [], warnings: [] };
  let entries: string[];
  try {
    entries = (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return scan;
    throw error;
  }
  const names = new Set(entries);
  for (const entry of entries) {
    if (entry.endsWith('.onnx.json') && !names.has(entry.slice(0, -'.json'.length))) {
      scan.warnings.push(
        `model ${entry.slice(0, -'.onnx.json'.length)}: skipped, ${entry} has no ${entry.slice(0, -'.json'.length)} beside it`,
      );
    }
    const path = join(dir, entry);
    if ((await stat(path)).isDirectory()) {
      if (await isTransformersAsrLayout(path)) {
        await scanAsrModel(scan, path, entry);
        continue;
      }
      if (!(await isKokoroLayout(path))) continue;
      try {
        const model = await readKokoroModel(path, entry);
        scan.kokoro.push({
          model,
          manifest: {
            name: entry,
            kind: 'tts',
            engine: 'kokoro',
            languages: [...new Set(model.voices.map((v) => v.language))],
            sampleRate: KOKORO_SAMPLE_RATE,
            checksum: await sha256File(model.modelPath),
            files: [model.modelPath.slice(path.length + 1), ...model.voices.map((v) => `voices/${v.name}.bin`)],
          },
        });
      } catch (error) {
        scan.warnings.push(`model ${entry}: skipped, ${(error as Error).message}`);
      }
      continue;
    }
    if (!entry.endsWith('.onnx')) continue;
    const name = entry.slice(0, -'.onnx'.length);
    const modelPath = join(dir, entry);
    if (!(await stat(modelPath)).isFile()) continue;
    if (!names.has(`${entry}.json`)) {
      scan.warnings.push(`model ${name}: skipped, ${entry} has no ${entry}.json (Piper voice config) beside it`);
      continue;
    }
    try {
      const config = parsePiperVoiceConfig(JSON.parse(await readFile(`${modelPath}.json`, 'utf8')));
      scan.piper.push({
        modelPath,
        config,
        manifest: {
          name,
          kind: 'tts',
          engine: 'piper',
          languages: [config.language],
          sampleRate: config.sampleRate,
          checksum: await sha256File(modelPath),
          files: [entry, `${entry}.json`],
        },
      });
    } catch (error) {
      scan.warnings.push(`model ${name}: skipped, ${entry}.json: ${(error as Error).message}`);
    }
  }
  return scan;
}

async function scanAsrModel(scan: ModelScan, path: string, name: string): Promise<void> {
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
