import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWithFfmpeg, postJson } from './http.js';
import { wavFile } from './wav.js';
import { wordErrorRate } from './wer.js';
import type { TestServer } from './test-server.js';

const runFile = promisify(execFile);

/** Debian's offline English recognizer, installed by scripts/setup-system.sh. */
export const RECOGNIZER = '/usr/bin/pocketsphinx_continuous';

// Everyday sentences: pocketsphinx's general English language model is the judge, and it stumbles
// on rare words (on the Harvard sentences it misses "birch canoe" and "planks" even for clean
// speech), which would measure the recognizer rather than our voice. docs/benchmarks.md has both.
export const EVERYDAY_SENTENCES = [
  'Please call me back when you get home tonight.',
  'The weather will be sunny and warm tomorrow morning.',
  'We need to buy some milk and bread at the store.',
  'My brother works at a bank in the city.',
  'Can you tell me how to get to the train station.',
];

export function requireRecognizer(): void {
  if (!existsSync(RECOGNIZER)) throw new Error(`${RECOGNIZER} is missing: run npm run setup (scripts/setup-system.sh)`);
}

/**
 * Round trip through the real server: each sentence is synthesized (wav, with `extra` fields such
 * as `voice`), decoded to 16 kHz by ffmpeg and transcribed by pocketsphinx.
 */
export async function speechRoundTrip(
  t: TestServer,
  extra: Record<string, unknown> = {},
  sentences: readonly string[] = EVERYDAY_SENTENCES,
): Promise<{ wer: number; heard: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-wer-'));
  try {
    const hypotheses: string[] = [];
    for (const [i, sentence] of sentences.entries()) {
      const res = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: sentence, response_format: 'wav', ...extra }, t.apiKey);
      if (res.status !== 200) throw new Error(`speech returned ${res.status}: ${await res.text()}`);
      const path = join(dir, `s${i}.wav`);
      writeFileSync(path, wavFile(await decodeWithFfmpeg(new Uint8Array(await res.arrayBuffer()), 16000), 16000));
      // Not spawnSync: a loaded machine's recognizer can take longer than the server keeps an idle
      // connection (5 s), and a blocked event loop keeps fetch from retiring it first, so the next
      // request went out on a socket the server had closed (ECONNRESET).
      const { stdout } = await runFile(RECOGNIZER, ['-infile', path, '-logfn', '/dev/null'], { encoding: 'utf8' }).catch(
        (err: { stderr?: string }) => {
          throw new Error(`pocketsphinx failed: ${err.stderr ?? String(err)}`);
        },
      );
      hypotheses.push(stdout.trim());
    }
    return { wer: wordErrorRate(sentences.join(' '), hypotheses.join(' ')), heard: hypotheses.join(' | ') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
