import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '@svc/core';
import { TransformersSpeechRecognizer } from '@svc/adapters-speech-recognition';
import { scanVoiceModels } from '../../src/models/model-directory.js';
import { scanRecognitionModels } from '@svc/adapters-speech-recognition';
import { catalogEntry } from '../../src/models/model-catalog.js';
import { HUB_ANSWER_TIMEOUT_MS, ModelPullError } from '../../src/models/hub-files.js';
import { pullModel, type PullOptions } from '../../src/models/model-pull.js';
import { writeTestAsrFolder } from '@svc/adapters-testing';
import { hubFilesFromFolder, testCommit, TestHubServer, type TestHubFile } from '@svc/adapters-testing';
import { writeKokoroModel, writePiperVoice } from '@svc/adapters-testing';

const principal = { keyId: 'k', tenantId: 't' } as unknown as Principal;
const sine = (samples: number) =>
  Int16Array.from({ length: samples }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 16000)));

/** Rejects with a ModelPullError of this reason; returns it. */
async function pullFails(promise: Promise<unknown>, reason: ModelPullError['reason']): Promise<ModelPullError> {
  const error = await promise.then(
    () => expect.fail(`expected a ${reason} error`),
    (e: Error) => e,
  );
  expect(error, String(error)).to.be.instanceOf(ModelPullError);
  expect((error as ModelPullError).reason, error.message).to.equal(reason);
  return error as ModelPullError;
}

/**
 * `pullModel` against a local HTTP server in the hub's URL layout serving test-built models under the
 * catalog's real repository names and paths (so the catalog's file lists are what is tested).
 */
describe('models pull from a hub (local server in the Hugging Face URL layout, test-built models)', function () {
  this.timeout(120000);
  let root: string;
  let hub: TestHubServer;
  let modelsDir: string;
  // whisper-tiny is pinned in the catalog: the test hub serves the repository at that commit.
  const whisperCommit = catalogEntry('whisper-tiny')!.revision;
  let whisperFiles: TestHubFile[];
  const decoderPath = 'onnx/decoder_model_merged.onnx';

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-pull-'));
    await writeTestAsrFolder(join(root, 'src-whisper'), { family: 'whisper' });
    await writeTestAsrFolder(join(root, 'src-moonshine'), { family: 'moonshine' });
    await writeKokoroModel(join(root, 'src-kokoro'), { af_test: () => 0, zf_test: () => 0 });
    await writePiperVoice(join(root, 'src-piper'), 'en_US-lessac-medium');
    whisperFiles = await hubFilesFromFolder(join(root, 'src-whisper'));
    const kokoro = await hubFilesFromFolder(join(root, 'src-kokoro'));
    const kokoroWeights = kokoro.find((f) => f.path === 'onnx/model_quantized.onnx')!;
    hub = await TestHubServer.start([
      { id: 'onnx-community/whisper-tiny', commit: whisperCommit, files: whisperFiles },
      { id: 'test-org/moonshine-test', commit: testCommit('moonshine'), files: await hubFilesFromFolder(join(root, 'src-moonshine')) },
      {
        id: 'onnx-community/Kokoro-82M-v1.0-ONNX',
        commit: catalogEntry('kokoro-82m-v1.0')!.revision,
        files: [
          ...kokoro,
          { ...kokoroWeights, path: 'onnx/model.onnx' },
          { path: 'config.json', content: new TextEncoder().encode('{"model_type":"style_text_to_speech_2"}') },
        ],
      },
      {
        id: 'rhasspy/piper-voices',
        commit: testCommit('piper'),
        refs: ['v1.0.0'],
        files: await hubFilesFromFolder(join(root, 'src-piper'), 'en/en_US/lessac/medium/'),
      },
      {
        id: 'test-org/not-a-model',
        commit: testCommit('other'),
        files: [{ path: 'README.md', content: new TextEncoder().encode('hello') }],
      },
    ]);
  });
  after(async () => {
    await hub.close();
    await rm(root, { recursive: true, force: true });
  });
  beforeEach(async () => {
    modelsDir = await mkdtemp(join(root, 'models-'));
    hub.faults = {};
    hub.requests.length = 0;
  });

  const options = (extra: Partial<PullOptions> = {}): PullOptions => ({
    modelsDir,
    hub: { hubUrl: hub.url },
    stallTimeoutMs: 5000,
    retries: 3,
    ...extra,
  });
  const leftovers = async () =>
    (await readdir(modelsDir)).filter((e) => e !== '.partial').concat(await readdir(join(modelsDir, '.partial')).catch(() => []));

  it('pulls a catalog Whisper at its pinned commit, checks every checksum, installs it whole; the recognizer loads it', async () => {
    const bytes: number[] = [];
    const result = await pullModel({ source: 'whisper-tiny' }, options({ events: { onBytes: (_f, b) => bytes.push(b) } }));
    expect(result.plan.commit).to.equal(whisperCommit);
    expect(result.installed).to.deep.equal(['whisper-tiny']);
    expect(result.plan.files.map((f) => f.path)).to.deep.equal(catalogEntry('whisper-tiny')!.variants.fp32);
    // Downloads name the commit, not the moving ref; LFS weights come through the CDN redirect.
    expect(hub.requests.some((r) => r.url === `/onnx-community/whisper-tiny/resolve/${whisperCommit}/${decoderPath}`)).to.equal(true);
    expect(hub.requests.some((r) => r.url.startsWith('/cdn-lfs/'))).to.equal(true);
    for (const f of result.plan.files) {
      const served = whisperFiles.find((w) => w.path === f.path)!;
      expect(f.checksum.algorithm).to.equal(served.lfs ? 'sha256' : 'git-sha1');
      expect(Buffer.compare(await readFile(join(modelsDir, 'whisper-tiny', f.path)), Buffer.from(served.content))).to.equal(0);
    }
    expect(await readdir(join(modelsDir, '.partial'))).to.deep.equal([]);
    expect(JSON.parse(await readFile(join(modelsDir, 'whisper-tiny', '.pulled.json'), 'utf8')).commit).to.equal(whisperCommit);
    expect(bytes.length).to.be.greaterThan(0);
    const recognizer = await TransformersSpeechRecognizer.create({ dir: join(modelsDir, 'whisper-tiny') });
    try {
      expect((await recognizer.transcribe({ samples: sine(16000), sampleRate: 16000 }, { language: 'en', principal })).text).to.equal(
        'hello world caf dear',
      );
    } finally {
      await recognizer.close();
    }
    await pullFails(pullModel({ source: 'whisper-tiny' }, options()), 'exists');
  });

  it("a catalog model's external data comes with it when the repository has one (.onnx_data beside the model); the recognizer loads it", async () => {
    await writeTestAsrFolder(join(root, 'src-whisper-data'), { family: 'whisper', externalData: true });
    const files = await hubFilesFromFolder(join(root, 'src-whisper-data'));
    expect(files.map((f) => f.path)).to.include('onnx/encoder_model.onnx_data');
    const entry = catalogEntry('whisper-base')!;
    hub.addRepo({ id: entry.repo, commit: entry.revision, files });
    const result = await pullModel({ source: 'whisper-base' }, options());
    expect(result.plan.commit).to.equal('1846881b6b3a3024392c1eea3ad983695bc23925');
    expect(result.plan.files.map((f) => f.path)).to.include('onnx/encoder_model.onnx_data');
    expect((await stat(join(modelsDir, 'whisper-base', 'onnx', 'encoder_model.onnx_data'))).size).to.be.greaterThan(0);
    const recognizer = await TransformersSpeechRecognizer.create({ dir: join(modelsDir, 'whisper-base') });
    try {
      expect((await recognizer.transcribe({ samples: sine(16000), sampleRate: 16000 }, { language: 'en', principal })).text).to.equal(
        'hello world caf dear',
      );
    } finally {
      await recognizer.close();
    }
  });

  it('the Whisper and Moonshine catalog entries are pinned to the commits public projects pin (not main)', () => {
    const pins = Object.fromEntries(
      ['whisper-tiny', 'whisper-base', 'whisper-small', 'moonshine-base', 'moonshine-tiny'].map((n) => [n, catalogEntry(n)!.revision]),
    );
    expect(pins).to.deep.equal({
      'whisper-tiny': 'ff4177021cc41f7db950912b73ea4fdf7d01d8e7',
      'whisper-base': '1846881b6b3a3024392c1eea3ad983695bc23925',
      'whisper-small': '36050c46d777d46dc4b5f43f6d90574fc38f8732',
      'moonshine-base': 'b1e9b6aae3c3c7298f10c3798393fdf38e8fbbad',
      'moonshine-tiny': 'a6da1241cd305dcd64eab1edbd615f2bb9aabb95',
    });
  });

  it('Kokoro from the catalog at its pinned commit: voices listed from the repository, the Mandarin one not downloaded; a Piper voice lands as NAME.onnx + NAME.onnx.json', async () => {
    await pullModel({ source: 'kokoro-82m-v1.0' }, options());
    expect((await readdir(join(modelsDir, 'kokoro-82m-v1.0', 'voices'))).sort()).to.deep.equal(['af_test.bin']);
    expect(hub.requests.some((r) => r.url.includes('zf_test'))).to.equal(false);
    await pullModel({ source: 'en_US-lessac-medium' }, options());
    const scan = await scanVoiceModels(modelsDir);
    expect(scan.warnings).to.deep.equal([]);
    expect(scan.kokoro.map((k) => k.manifest.name)).to.deep.equal(['kokoro-82m-v1.0']);
    expect(scan.piper.map((p) => p.manifest.name)).to.deep.equal(['en_US-lessac-medium']);
  });

  it('a repository not in the catalog is pulled when its layout is recognised (owner/name@revision); another layout is refused saying what was looked for', async () => {
    const result = await pullModel({ source: 'test-org/moonshine-test@main' }, options());
    expect(result.installed).to.deep.equal(['moonshine-test']);
    expect((await scanRecognitionModels(modelsDir)).asr.map((a) => a.manifest.engine)).to.deep.equal(['moonshine']);
    const error = await pullFails(pullModel({ source: 'test-org/not-a-model' }, options()), 'layout');
    expect(error.message).to.include('Whisper / Moonshine').and.include('Kokoro').and.include('Piper');
    await pullFails(pullModel({ source: 'no-such-model' }, options()), 'unknown_model');
  });

  it('resumes after a cut connection: the rest is fetched with a Range request from where the file stopped', async () => {
    hub.faults = { cutOnce: new Map([[decoderPath, 9000]]) };
    const retries: number[] = [];
    await pullModel({ source: 'whisper-tiny' }, options({ events: { onRetry: (_f, _r, bytes) => retries.push(bytes) } }));
    expect(retries).to.deep.equal([9000]);
    const size = whisperFiles.find((f) => f.path === decoderPath)!.content.length;
    expect(hub.contentRequests(decoderPath).map((r) => r.range)).to.include(`bytes=9000-${size - 1}`);
  });

  it('an interrupted pull keeps what arrived and the next pull resumes it', async () => {
    hub.faults = { cutOnce: new Map([[decoderPath, 9000]]) };
    const error = await pullFails(pullModel({ source: 'whisper-tiny' }, options({ retries: 0 })), 'network');
    expect(error.message).to.include('9000 of').and.include('run pull again to resume');
    expect((await stat(join(modelsDir, '.partial', 'whisper-tiny', decoderPath))).size).to.equal(9000);
    expect(await readdir(modelsDir)).to.deep.equal(['.partial']);
    hub.requests.length = 0;
    await pullModel({ source: 'whisper-tiny' }, options());
    const size = whisperFiles.find((f) => f.path === decoderPath)!.content.length;
    expect(hub.contentRequests(decoderPath).map((r) => r.range)).to.include(`bytes=9000-${size - 1}`);
    expect((await stat(join(modelsDir, 'whisper-tiny', decoderPath))).size).to.equal(size);
  });

  it('a checksum mismatch is refused and leaves nothing behind', async () => {
    hub.faults = { corrupt: new Set([decoderPath]) };
    const error = await pullFails(pullModel({ source: 'whisper-tiny' }, options()), 'checksum');
    expect(error.message).to.include(decoderPath).and.include('sha256');
    expect(await leftovers()).to.deep.equal([]);
  });

  it('a file missing from the repository (404) is named, before anything is downloaded; so is a repository that does not exist', async () => {
    const saved = hub.faults;
    const repoFiles = whisperFiles.filter((f) => f.path !== 'tokenizer_config.json');
    hub.addRepo({ id: 'onnx-community/whisper-tiny', commit: whisperCommit, files: repoFiles });
    try {
      const error = await pullFails(pullModel({ source: 'whisper-tiny' }, options()), 'not_found');
      expect(error.message).to.include('tokenizer_config.json').and.include('404');
      expect(hub.requests.some((r) => r.url.includes('/resolve/'))).to.equal(false);
    } finally {
      hub.addRepo({ id: 'onnx-community/whisper-tiny', commit: whisperCommit, files: whisperFiles });
      hub.faults = saved;
    }
    const missing = await pullFails(pullModel({ source: 'test-org/nothing-here' }, options()), 'not_found');
    expect(missing.message).to.include('test-org/nothing-here');
    expect(await leftovers()).to.deep.equal([]);
  });

  it('a slow server: the pull completes, reporting progress as bytes arrive', async () => {
    hub.faults = { bytesPerSecond: 50_000 };
    const progress: number[] = [];
    const started = performance.now();
    await pullModel({ source: 'whisper-tiny' }, options({ events: { onBytes: (f, b) => f.path === decoderPath && progress.push(b) } }));
    const size = whisperFiles.find((f) => f.path === decoderPath)!.content.length;
    expect(progress.length).to.be.greaterThan(1);
    expect(progress).to.deep.equal([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).to.equal(size);
    console.log(
      `      slow hub (50 kB/s): ${(performance.now() - started).toFixed(0)} ms, ${progress.length} progress events for ${size} bytes`,
    );
  });

  it('a server that stops sending: each attempt gives up after the stall timeout, the error says so, and the next pull resumes', async () => {
    hub.faults = { stall: { path: decoderPath, afterBytes: 16384, ms: 3000 } };
    const error = await pullFails(pullModel({ source: 'whisper-tiny' }, options({ stallTimeoutMs: 400, retries: 1 })), 'stalled');
    expect(error.message).to.include('sent nothing for 0.4 s').and.include('2 attempts');
    hub.faults = {};
    await pullModel({ source: 'whisper-tiny' }, options());
    expect(hub.contentRequests(decoderPath).some((r) => r.range?.startsWith('bytes=16384-'))).to.equal(true);
  });

  it('a part from an older commit of the same ref is not resumed', async () => {
    const staging = join(modelsDir, '.partial', 'whisper-tiny');
    await mkdir(join(staging, 'onnx'), { recursive: true });
    await writeFile(join(staging, '.commit'), testCommit('older'));
    await writeFile(join(staging, decoderPath), 'stale bytes of another commit');
    await pullModel({ source: 'whisper-tiny' }, options());
    expect(hub.contentRequests(decoderPath).every((r) => !r.range || r.range === 'bytes=0-0')).to.equal(true);
  });
  it('a hub (or mirror, or proxy) that accepts the connection and never answers: the pull gives up, saying so, and leaves nothing', async () => {
    expect(HUB_ANSWER_TIMEOUT_MS).to.equal(60_000); // the downloads' stall timeout, not undici's 5 minutes
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const dir = await mkdtemp(join(tmpdir(), 'svc-silent-hub-'));
    try {
      const started = performance.now();
      for (const source of ['en_US-lessac-medium', 'test-org/whisper-test']) {
        const error = await pullFails(
          pullModel({ source }, { ...options(), modelsDir: dir, hub: { hubUrl: url, answerTimeoutMs: 300 } }),
          'stalled',
        );
        expect(error.message).to.include('did not answer within 0.3 s');
      }
      expect(performance.now() - started).to.be.below(3_000);
      expect(await readdir(dir)).to.deep.equal([]);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
