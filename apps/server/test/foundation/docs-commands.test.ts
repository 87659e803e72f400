import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { librivoxSentences } from '../helpers/librivox.js';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { wavFile } from '../helpers/wav.js';

/*
 * Every shell example of README.md and docs/*.md, run as pasted, against one real server process.
 *
 * The convention the documents follow (README.md, "Using the API", says it to readers):
 * - A fenced block tagged `bash`, `sh` or `shell` is a runnable example. It is run with
 *   `bash -eo pipefail`, so each of its commands must succeed, and `curl` fails on an HTTP error
 *   status (the test adds --fail-with-body): an example that gets a 4xx/5xx fails the test.
 * - `$BASE` is the server's URL and `$KEY` an API key of it; `http://localhost:8080` and
 *   `http://127.0.0.1:8080` in a block are rewritten to the server's address, and the Wyoming port
 *   the Home Assistant examples reach (`/dev/tcp/127.0.0.1/10200`) to the server's Wyoming port.
 * - A block indented inside a list item (docs/wyoming.md's steps) is a block like any other.
 * - The blocks run one after the other in a scratch folder holding what they read: `me.wav` and
 *   `clip.wav` (real speech: LibriVox sentences from pocketsphinx-testdata, 10 s and 3 s), `clip.mp3`,
 *   `speech.wav` and `face.jpg` (a 144 KB photo of one face). `npm` runs from the repository root
 *   (where a reader types it), against the server's data folder.
 * - A block that cannot run here (it starts a server, needs the internet or hours, or is an
 *   environment file) is preceded by `<!-- docs-test: skip REASON -->`. Skips are counted and
 *   listed, never silent; an untagged block whose first line is a command fails the test (tag it).
 */

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const require = createRequire(import.meta.url);
const SHELL_TAGS = new Set(['bash', 'sh', 'shell']);
const SKIP_MARKER = /<!--\s*docs-test:\s*skip\s+(\S[^>]*?)\s*-->\s*$/;
/** A first line that is a command a reader would paste (not an output sample or a tree). */
const COMMAND_LINE = /^(?:curl|npm|node|npx|bash|export|exec|cd|jq|ffmpeg|ffplay|(?:[A-Z][A-Z0-9_]*=\S*\s+)+(?:npm|node|curl))\b/;

interface Block {
  file: string;
  line: number;
  tag: string;
  body: string;
  skip: string | null;
}

function fencedBlocks(file: string): Block[] {
  const lines = readFileSync(resolve(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A fence may be indented (a block inside a list item): its lines carry the same indent.
    const open = /^( *)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(indent) && /^```\s*$/.test(l.slice(indent.length)));
    if (end < 0) break;
    const before =
      lines
        .slice(0, i)
        .reverse()
        .find((l) => l.trim() !== '') ?? '';
    blocks.push({
      file,
      line: i + 1,
      tag: open[2]!,
      body: lines
        .slice(i + 1, end)
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
        .join('\n'),
      skip: SKIP_MARKER.exec(before)?.[1] ?? null,
    });
    i = end;
  }
  return blocks;
}

const DOCS = [
  'README.md',
  ...readdirSync(resolve(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const ALL = DOCS.flatMap(fencedBlocks);
const SHELL = ALL.filter((b) => SHELL_TAGS.has(b.tag));
const RUNNABLE = SHELL.filter((b) => b.skip === null);
const SKIPPED = SHELL.filter((b) => b.skip !== null);

/** Makes the files the examples read, in `dir`. */
async function writeExampleFiles(dir: string): Promise<void> {
  const sentences = librivoxSentences();
  const byId = (suffix: string) => sentences.find((s) => s.id.endsWith(suffix))!;
  // 10 s of one reader: two sentences of the same chapter, as a voice reference is recorded.
  const long = [byId('0870'), byId('0880')];
  const joined = new Int16Array(long.reduce((n, s) => n + s.samples.length, 0));
  let at = 0;
  for (const s of long) {
    joined.set(s.samples, at);
    at += s.samples.length;
  }
  writeFileSync(join(dir, 'me.wav'), wavFile(joined, 16000));
  writeFileSync(join(dir, 'clip.wav'), byId('0880').wav);
  writeFileSync(join(dir, 'speech.wav'), byId('0930').wav);
  const mp3 = spawnSync(ffmpeg.path, [
    '-v',
    'error',
    '-i',
    join(dir, 'clip.wav'),
    '-codec:a',
    'libmp3lame',
    '-b:a',
    '64k',
    join(dir, 'clip.mp3'),
  ]);
  if (mp3.status !== 0) throw new Error(`ffmpeg could not make clip.mp3: ${mp3.stderr}`);
  writeFileSync(
    join(dir, 'face.jpg'),
    readFileSync(join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg')),
  );
}

function runBlock(block: Block, server: ServerProcess, wyomingPort: number, dir: string): Promise<{ code: number | null; output: string }> {
  const script = [
    // curl fails on an HTTP error status; npm runs where a reader types it, the repository root.
    'curl() { command curl --fail-with-body "$@"; }',
    `npm() { (cd ${JSON.stringify(ROOT)} && command npm "$@"); }`,
    block.body
      .replace(/(https?|wss?):\/\/(?:localhost|127\.0\.0\.1):8080/g, (_m, scheme: string) => `${scheme}://127.0.0.1:${server.port}`)
      .replace(/\/dev\/tcp\/127\.0\.0\.1\/10200\b/g, `/dev/tcp/127.0.0.1/${wyomingPort}`),
  ].join('\n');
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  return new Promise((done) => {
    // A process group of its own: a timeout (or a command left in the background) ends every
    // process the block started, not only bash.
    const child = spawn('bash', ['-eo', 'pipefail', '-c', script], {
      cwd: dir,
      env: { ...inherited, BASE: server.url, KEY: server.apiKey, SVC_DATA_DIR: server.dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(killGroup, 90_000);
    let code: number | null = null;
    child.on('exit', (status) => {
      code = status;
      clearTimeout(timer);
      killGroup();
    });
    child.on('close', () => done({ code, output }));
  });
}

describe('the shell examples of README.md and docs/ work when pasted (one real server)', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let wyomingPort: number;
  let dir: string;

  before(async function () {
    this.timeout(180_000);
    dir = mkdtempSync(join(tmpdir(), 'svc-docs-commands-'));
    await writeExampleFiles(dir);
    // As `npm start` runs it: the default settings, nothing the examples do not say, and the
    // Wyoming port the Home Assistant examples open (SVC_WYOMING_PORT=10200 there).
    wyomingPort = await freePort();
    server = await startServerProcess({ readyTimeoutMs: 120_000, env: { SVC_WYOMING_PORT: String(wyomingPort) } });
    console.log(`      ${RUNNABLE.length} runnable blocks, ${SKIPPED.length} marked skip:`);
    for (const b of SKIPPED) console.log(`        skip ${b.file}:${b.line} (${b.skip})`);
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the examples: every shell block runs or says why it cannot', () => {
    expect(RUNNABLE.length).to.be.at.least(10);
    const untagged = ALL.filter((b) => b.tag === '' && COMMAND_LINE.test(b.body.trimStart()));
    expect(
      untagged.map((b) => `${b.file}:${b.line}`),
      'commands in a block without a shell tag: tag it bash (and mark it skip if it cannot run here)',
    ).to.deep.equal([]);
    const orphanMarkers = DOCS.flatMap((file) =>
      readFileSync(resolve(ROOT, file), 'utf8')
        .split('\n')
        .map((l, i) => ({ l, i }))
        .filter(
          ({ l, i }) => /docs-test:/.test(l) && !SHELL.some((b) => b.file === file && b.skip !== null && b.line > i + 1 && b.line <= i + 3),
        )
        .map(({ i }) => `${file}:${i + 1}`),
    );
    expect(orphanMarkers, 'a docs-test marker not right before a shell block').to.deep.equal([]);
  });

  for (const block of RUNNABLE) {
    it(`${block.file}:${block.line}`, async () => {
      const { code, output } = await runBlock(block, server, wyomingPort, dir);
      expect(code, `exit ${code}; the block printed:\n${output.slice(-3000)}\nserver log:\n${server.tail(15)}`).to.equal(0);
    });
  }
});
