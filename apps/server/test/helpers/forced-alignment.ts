import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What pocketsphinx prints for silence and the sentence's bounds: not words. */
const NOT_WORDS = new Set(['<s>', '</s>', '<sil>', '(NULL)', '[NOISE]']);
const ends = new Map<string, number>();

/**
 * Where the speech of a recording ends (ms): the end of its last word, with pocketsphinx
 * (scripts/setup-system.sh installs it) forced to the words said (a grammar of exactly them), so
 * its decoder only places their phones in time.
 *
 * An energy rule cannot date this on the LibriVox readings: a creaky last word ("... for them")
 * is as quiet as the room noise after another sentence ("... himself"), 3-8 dB above the
 * recording's floor. Relative to the peak (30 dB below it), 0880 and 0930 end 170 and 360 ms late;
 * an absolute -34 dBFS ends 0870 340 ms early (docs/benchmarks.md, "The end of speech").
 */
export function alignedSpeechEndMs(wavPath: string, words: string): number {
  const key = `${wavPath}\n${words}`;
  const known = ends.get(key);
  if (known !== undefined) return known;
  const dir = mkdtempSync(join(tmpdir(), 'svc-align-'));
  try {
    const grammar = join(dir, 'words.gram');
    writeFileSync(grammar, `#JSGF V1.0;\ngrammar words;\npublic <words> = ${words.toLowerCase().replace(/[^\p{L}\p{N}' ]+/gu, ' ')};\n`);
    const out = execFileSync('pocketsphinx_continuous', ['-infile', wavPath, '-jsgf', grammar, '-time', 'yes', '-logfn', '/dev/null'], {
      encoding: 'utf8',
    });
    // One line per word: "word start end confidence" (seconds; `end` is the start of its last 10 ms frame).
    const last = out
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f.length === 4 && !NOT_WORDS.has(f[0]!))
      .pop();
    if (!last) throw new Error(`pocketsphinx could not align "${words}" in ${wavPath}`);
    const endMs = Math.round(Number(last[2]) * 1000) + 10;
    ends.set(key, endMs);
    return endMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
