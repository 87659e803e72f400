import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePiperVoiceConfig, type PiperVoiceConfig } from '../piper/piper-voice-config.js';

/** What the service knows about one model found in the model directory. */
export interface ModelManifest {
  /** Directory-unique name; Piper `en_US-lessac-medium.onnx` -> `en_US-lessac-medium`. */
  name: string;
  kind: 'tts';
  engine: 'piper';
  languages: string[];
  sampleRate: number;
  /** sha256 of the .onnx file, hex. */
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
 * A missing directory is an empty scan; a broken or incomplete model is skipped with one warning.
 */
export async function scanModelDirectory(dir: string): Promise<ModelScan> {
  const scan: ModelScan = { piper: [], warnings: [] };
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
      scan.warnings.push(`model ${entry.slice(0, -'.onnx.json'.length)}: skipped, ${entry} has no ${entry.slice(0, -'.json'.length)} beside it`);
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
