import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { modelDirectoryEntries, sha256File, type ModelManifest } from '@svc/adapters-runtime';

/** Smart Turn's CPU (8-bit) export, the one a folder holding both variants is used with. */
const CPU_EXPORT = /-cpu\.onnx$/;
const SMART_TURN_FILE = /^smart-turn.*\.onnx$/;

/** A Smart Turn folder of the model directory (`models pull smart-turn-v3.2`): its ONNX file. */
export interface TurnModelEntry {
  manifest: ModelManifest;
  modelPath: string;
}

/** The ONNX file a Smart Turn folder is used with: its 8-bit export when it holds both; null when it holds none. */
export async function turnModelInFolder(folder: string): Promise<string | null> {
  const files = (await readdir(folder).catch(() => [] as string[])).filter((f) => SMART_TURN_FILE.test(f)).sort();
  const chosen = files.find((f) => CPU_EXPORT.test(f)) ?? files[0];
  return chosen ? join(folder, chosen) : null;
}

/** The end-of-turn models in the model directory: every sub-directory holding a `smart-turn*.onnx` file (kind `turn`). */
export async function scanTurnModels(dir: string): Promise<TurnModelEntry[]> {
  const found: TurnModelEntry[] = [];
  for (const entry of await modelDirectoryEntries(dir)) {
    const folder = join(dir, entry);
    if (!(await stat(folder)).isDirectory()) continue;
    const modelPath = await turnModelInFolder(folder);
    if (!modelPath) continue;
    found.push({
      modelPath,
      manifest: {
        name: entry,
        kind: 'turn',
        engine: 'smart-turn',
        languages: ['multilingual (23 languages)'],
        sampleRate: 16000,
        checksum: await sha256File(modelPath),
        files: [modelPath.slice(folder.length + 1)],
      },
    });
  }
  return found;
}
