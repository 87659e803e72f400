import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { modelDirectoryEntries, sha256File, type ModelManifest } from '@svc/adapters-runtime';
import { parsePiperVoiceConfig, type PiperVoiceConfig } from '../piper/piper-voice-config.js';
import { isKokoroLayout, KOKORO_SAMPLE_RATE, readKokoroModel, type KokoroModel } from '../kokoro/kokoro-model.js';

export interface PiperModel {
  manifest: ModelManifest;
  modelPath: string;
  config: PiperVoiceConfig;
}

/** The voices in the model directory (the recognizers' folders are read by their own family's scan). */
export interface VoiceModelScan {
  piper: PiperModel[];
  kokoro: { manifest: ModelManifest; model: KokoroModel }[];
  /** One line per model that was skipped, saying why. */
  warnings: string[];
}

/**
 * Scans the model directory for voices: every `NAME.onnx` with a `NAME.onnx.json` beside it is a Piper voice.
 * Every sub-directory with a voices/ folder is a Kokoro export (see kokoro-model.ts); its name is the
 * directory's. Other sub-directories (the recognizers') are left to their own scan. A missing directory is an empty scan; a broken or incomplete model is skipped with one warning.
 */
export async function scanVoiceModels(dir: string): Promise<VoiceModelScan> {
  const scan: VoiceModelScan = { piper: [], kokoro: [], warnings: [] };
  const entries = await modelDirectoryEntries(dir);
  const names = new Set(entries);
  for (const entry of entries) {
    if (entry.endsWith('.onnx.json') && !names.has(entry.slice(0, -'.json'.length))) {
      scan.warnings.push(
        `model ${entry.slice(0, -'.onnx.json'.length)}: skipped, ${entry} has no ${entry.slice(0, -'.json'.length)} beside it`,
      );
    }
    const path = join(dir, entry);
    if ((await stat(path)).isDirectory()) {
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
