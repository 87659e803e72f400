import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';

/** What the service knows about one model found in the model directory (every engine family's scan gives these). */
export interface ModelManifest {
  /** Directory-unique name; Piper `en_US-lessac-medium.onnx` -> `en_US-lessac-medium`. */
  name: string;
  /** A voice, a recognizer, or semantic_vad's end-of-turn model. */
  kind: 'tts' | 'asr' | 'turn';
  engine: 'piper' | 'kokoro' | 'whisper' | 'moonshine' | 'smart-turn';
  languages: string[];
  sampleRate: number;
  /** sha256 of the .onnx file (a recognizer's: its encoder), hex. */
  checksum: string;
  files: string[];
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The model directory's entries, sorted (each family's scan walks them in this order); none when it is missing. */
export async function modelDirectoryEntries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
