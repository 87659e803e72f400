import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { decodeWithFfmpeg, postJson } from '../helpers/http.js';
import { wordErrorRate } from '../helpers/wer.js';

// Everyday sentences: pocketsphinx's general English language model is the judge, and it stumbles
// on rare words (on the Harvard sentences it misses "birch canoe" and "planks" even for clean
// speech), which would measure the recognizer rather than our voice. docs/benchmarks.md has both.
const SENTENCES = [
  'Please call me back when you get home tonight.',
  'The weather will be sunny and warm tomorrow morning.',
  'We need to buy some milk and bread at the store.',
  'My brother works at a bank in the city.',
  'Can you tell me how to get to the train station.',
];
const RECOGNIZER = '/usr/bin/pocketsphinx_continuous';

/**
 * Round trip: our default voice speaks five Harvard sentences, Debian's pocketsphinx (installed by
 * scripts/setup-system.sh) transcribes them, and the word error rate must stay under 15 %.
 */
describe('intelligibility of the default voice (pocketsphinx round trip)', function () {
  this.timeout(180_000);
  let t: TestServer;
  let dir: string;
  before(async function () {
    if (!existsSync(RECOGNIZER)) throw new Error(`${RECOGNIZER} is missing: run npm run setup (scripts/setup-system.sh)`);
    t = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'svc-wer-'));
  });
  after(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('word error rate under 15 % over 5 sentences', async () => {
    const hypotheses: string[] = [];
    for (const [i, sentence] of SENTENCES.entries()) {
      const res = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: sentence, response_format: 'wav' }, t.apiKey);
      expect(res.status).to.equal(200);
      const pcm16k = await decodeWithFfmpeg(new Uint8Array(await res.arrayBuffer()), 16000);
      const path = join(dir, `s${i}.wav`);
      writeFileSync(path, wav16k(pcm16k));
      const run = spawnSync(RECOGNIZER, ['-infile', path, '-logfn', '/dev/null'], { encoding: 'utf8' });
      expect(run.status, run.stderr).to.equal(0);
      hypotheses.push(run.stdout.trim());
    }
    const wer = wordErrorRate(SENTENCES.join(' '), hypotheses.join(' '));
    console.log(`      WER ${(wer * 100).toFixed(1)} %: ${hypotheses.join(' | ')}`);
    expect(wer).to.be.lessThan(0.15);
  });
});

function wav16k(samples: Int16Array): Buffer {
  const header = Buffer.alloc(44);
  const dataBytes = samples.length * 2;
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16000, 24);
  header.writeUInt32LE(32000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, dataBytes)]);
}
