import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** What the service knows about one model found in the model directory (every engine family's scan gives these). */
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

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
