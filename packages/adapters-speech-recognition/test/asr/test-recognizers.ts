import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '@svc/core';
import { TransformersSpeechRecognizer } from '../../src/asr/seq2seq/transformers-speech-recognizer.js';
import { writeTestAsrFolder, type TestAsrFolderOptions } from '@svc/adapters-testing';

export const principal = { keyId: 'k', tenantId: 't' } as unknown as Principal;

/**
 * Recognizers on test-built model folders for one describe block: `recognizer(name, options)` writes
 * the folder under a temporary root and loads it; everything is closed and removed after the block.
 */
export function testRecognizers(prefix: string): {
  root: () => string;
  recognizer: (name: string, options: TestAsrFolderOptions) => Promise<TransformersSpeechRecognizer>;
} {
  let root = '';
  const open: TransformersSpeechRecognizer[] = [];
  before(async () => (root = await mkdtemp(join(tmpdir(), prefix))));
  after(async () => {
    await Promise.all(open.map((r) => r.close()));
    await rm(root, { recursive: true, force: true });
  });
  return {
    root: () => root,
    recognizer: async (name, options) => {
      await writeTestAsrFolder(join(root, name), options);
      const r = await TransformersSpeechRecognizer.create({ dir: join(root, name) });
      open.push(r);
      return r;
    },
  };
}
