import { deflateSync } from 'node:zlib';

/**
 * Whisper's repetition signal: UTF-8 bytes of the text over the bytes of its zlib compression
 * (`len(text_bytes) / len(zlib.compress(text_bytes))` in openai/whisper). A looping decode
 * ("the the the ...") compresses well and scores high; Whisper re-decodes above 2.4.
 */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return 0;
  return bytes.length / deflateSync(bytes).length;
}
