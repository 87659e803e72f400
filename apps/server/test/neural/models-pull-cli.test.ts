import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogEntry } from '@svc/adapters-speech-synthesis';
import {
  hubFilesFromFolder,
  piperTestModel,
  smartTurnTestModel,
  testCommit,
  TestHubServer,
  writeTestAsrFolder,
} from '@svc/adapters-testing';
import { modelsCliWithEnv } from '../helpers/models-cli.js';
import { freePort } from '../helpers/server-process.js';
import { startTestServer } from '../helpers/test-server.js';

const CLI = fileURLToPath(new URL('../../src/cli/models.js', import.meta.url));

/**
 * Runs the CLI in a private mount namespace (`unshare -rm`, no root needed where user namespaces are
 * allowed) whose model directory is a tmpfs of `size`, so a full disk is real and nothing stays
 * mounted. `during` runs in the namespace while the pull is running (e.g. filling the disk).
 * Returns null when this machine cannot make the namespace. (Asynchronous: the hub answering the
 * pull runs in this process.)
 */
async function pullOnTinyDisk(size: string, hubUrl: string, during = ''): Promise<{ out: string; code: number; left: string } | null> {
  const mnt = mkdtempSync(join(tmpdir(), 'svc-tiny-disk-'));
  const script = [
    `mount -t tmpfs -o size=${size} tmpfs ${mnt} || exit 97`,
    `SVC_MODELS_DIR=${mnt} HF_ENDPOINT=${hubUrl} node ${CLI} pull whisper-tiny > ${mnt}.out 2>&1 &`,
    during ? during.replaceAll('$MNT', mnt) : ':',
    'wait $!; echo "exit=$?" >> ' + `${mnt}.out`,
    `find ${mnt} -type f | sed "s|${mnt}/||" | grep -v '^filler$' | sort > ${mnt}.left`,
  ].join('\n');
  const child = spawn('unshare', ['-rm', 'sh', '-c', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const status = await new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code));
  });
  if (status === null || status === 97 || /unshare:/.test(stderr)) {
    console.log(`      no private mount namespace here (unshare -rm: ${stderr.trim() || 'not available'})`);
    return null;
  }
  const read = (f: string) => readFileSync(f, 'utf8');
  const out = read(`${mnt}.out`);
  const left = read(`${mnt}.left`);
  rmSync(mnt, { recursive: true, force: true });
  rmSync(`${mnt}.out`, { force: true });
  rmSync(`${mnt}.left`, { force: true });
  return { out, code: Number(/exit=(\d+)/.exec(out)?.[1]), left };
}

describe('npm run models -- pull (local hub server, test-built models)', function () {
  this.timeout(180000);
  let root: string;
  let hub: TestHubServer;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-pull-cli-'));
    await writeTestAsrFolder(join(root, 'src'), { family: 'whisper' });
    // whisper-tiny is pinned in the catalog: the hub serves the repository at that commit.
    hub = await TestHubServer.start([
      {
        id: 'onnx-community/whisper-tiny',
        commit: catalogEntry('whisper-tiny')!.revision,
        files: await hubFilesFromFolder(join(root, 'src')),
      },
      // Smart Turn is pulled at `main`: both exports, each a model of its signature.
      {
        id: 'pipecat-ai/smart-turn-v3',
        commit: testCommit('smart-turn'),
        files: [
          { path: 'smart-turn-v3.2-cpu.onnx', content: smartTurnTestModel(), lfs: true },
          { path: 'smart-turn-v3.2-gpu.onnx', content: smartTurnTestModel({ offset: 0.3 }), lfs: true },
          { path: 'README.md', content: new TextEncoder().encode('# Smart Turn v3\n') },
        ],
      },
    ]);
  });
  after(async () => {
    await hub.close();
    rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => (hub.faults = {}));

  it('pulls a catalog model with HF_ENDPOINT pointing at the hub, loads it once, and list shows it; catalog lists the known models', async () => {
    const dataDir = mkdtempSync(join(root, 'data-'));
    const env = { SVC_DATA_DIR: dataDir, HF_ENDPOINT: hub.url };
    const pulled = await modelsCliWithEnv(env, 'pull', 'whisper-tiny');
    expect(pulled.code, pulled.out).to.equal(0);
    expect(pulled.out).to.match(
      /^pulling whisper-tiny from onnx-community\/whisper-tiny@ff4177021cc41f7db950912b73ea4fdf7d01d8e7 \(commit ff4177021cc4\): 7 files/,
    );
    expect(pulled.out).to.match(/onnx\/decoder_model_merged\.onnx done/);
    expect(pulled.out).to.match(/pulled whisper-tiny .* checksums verified, loads/);
    const list = await modelsCliWithEnv(env, 'list');
    expect(list.out).to.match(/whisper-tiny\tasr\twhisper\ten,de/);
    expect((await modelsCliWithEnv(env, 'pull', 'whisper-tiny')).out).to.match(/already exists/);
    const catalog = await modelsCliWithEnv(env, 'catalog');
    for (const name of ['kokoro-82m-v1.0', 'en_US-lessac-medium', 'whisper-base.en', 'moonshine-tiny'])
      expect(catalog.out).to.include(name);
    expect((await modelsCliWithEnv(env, 'pull', 'whisper-tiny', '--variant', 'fp16')).code).to.equal(2);
    expect((await modelsCliWithEnv(env, 'pull', 'not-a-catalog-name')).code).to.equal(2);
  });

  it("pulls semantic_vad's end-of-turn model (its 8-bit export unless --variant fp32), lists it, and a server started with SVC_TURN_MODEL=NAME loads it", async () => {
    const dataDir = mkdtempSync(join(root, 'data-'));
    const env = { SVC_DATA_DIR: dataDir, HF_ENDPOINT: hub.url };
    const pulled = await modelsCliWithEnv(env, 'pull', 'smart-turn-v3.2');
    expect(pulled.code, pulled.out).to.equal(0);
    expect(pulled.out).to.match(
      /pulled smart-turn-v3\.2 .* checksums verified, loads \(set SVC_TURN_MODEL=smart-turn-v3\.2 and restart the server to use it\)/,
    );
    expect(readdirSync(join(dataDir, 'models', 'smart-turn-v3.2')).filter((f) => f.endsWith('.onnx'))).to.deep.equal([
      'smart-turn-v3.2-cpu.onnx',
    ]);
    expect((await modelsCliWithEnv(env, 'list')).out).to.match(/smart-turn-v3\.2\tturn\tsmart-turn\t/);
    const fp32 = await modelsCliWithEnv(env, 'pull', 'smart-turn-v3.2', '--variant', 'fp32', '--name', 'smart-turn-fp32');
    expect(fp32.code, fp32.out).to.equal(0);
    expect(readdirSync(join(dataDir, 'models', 'smart-turn-fp32')).filter((f) => f.endsWith('.onnx'))).to.deep.equal([
      'smart-turn-v3.2-gpu.onnx',
    ]);
    const verified = await modelsCliWithEnv(env, 'verify');
    expect(verified.out).to.match(/2 model\(s\) load, 0 problem\(s\)/);
    const server = await startTestServer({ env: { SVC_TURN_MODEL: 'smart-turn-v3.2' }, dataDir });
    await server.close();
  });

  it('a pulled file that is not a Smart Turn model does not load and is removed again', async () => {
    const wrong = await TestHubServer.start([
      {
        id: 'pipecat-ai/smart-turn-v3',
        commit: testCommit('not smart turn'),
        files: [
          { path: 'smart-turn-v3.2-cpu.onnx', content: piperTestModel({ sampleRate: 22050 }), lfs: true },
          { path: 'smart-turn-v3.2-gpu.onnx', content: piperTestModel({ sampleRate: 22050 }), lfs: true },
        ],
      },
    ]);
    try {
      const dataDir = mkdtempSync(join(root, 'data-'));
      const result = await modelsCliWithEnv({ SVC_DATA_DIR: dataDir, HF_ENDPOINT: wrong.url }, 'pull', 'smart-turn-v3.2');
      expect(result.code, result.out).to.equal(1);
      expect(result.out).to.contain('is not a Smart Turn v3 model');
      expect(result.out).to.contain('not added: smart-turn-v3.2 was downloaded but does not load (removed)');
      expect(readdirSync(join(dataDir, 'models'))).not.to.include('smart-turn-v3.2');
    } finally {
      await wrong.close();
    }
  });

  it('a hub that cannot be reached: the host, the reason (refused) and what to do (HF_ENDPOINT, a proxy, models add)', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(root, 'data-'));
    const result = await modelsCliWithEnv({ SVC_DATA_DIR: dataDir, HF_ENDPOINT: `http://127.0.0.1:${port}` }, 'pull', 'whisper-tiny');
    expect(result.code, result.out).to.equal(1);
    expect(result.out).to.contain(`could not reach 127.0.0.1:${port}: connection refused (ECONNREFUSED`);
    expect(result.out).not.to.contain('fetch failed');
    expect(result.out).to.contain(`The hub (http://127.0.0.1:${port}) could not be reached from this machine`);
    for (const advice of ['HF_ENDPOINT=', 'HTTPS_PROXY=', 'npm run models -- add PATH']) expect(result.out).to.contain(advice);
  });

  it('pulls through the proxy HTTP_PROXY names (the hub host resolves only there), and the process fetch is itself again after', async () => {
    // A forward proxy that tunnels every CONNECT to the local hub, whatever host was asked for.
    const asked: string[] = [];
    const hubPort = Number(new URL(hub.url).port);
    const proxy = createHttpServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, client, head) => {
      asked.push(req.url ?? '');
      const upstream = connect(hubPort, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const dataDir = mkdtempSync(join(root, 'data-'));
      const result = await modelsCliWithEnv(
        { SVC_DATA_DIR: dataDir, HF_ENDPOINT: `http://hub.svc-proxy-test:${hubPort}`, HTTP_PROXY: proxyUrl },
        'pull',
        'whisper-tiny',
      );
      expect(result.code, result.out).to.equal(0);
      expect(asked.length).to.be.greaterThan(0);
      expect(
        asked.every((a) => a === `hub.svc-proxy-test:${hubPort}`),
        asked.join(' '),
      ).to.equal(true);
      // The CLI ran in this process: its proxy must not stay in the way of every later fetch.
      const before = asked.length;
      expect((await fetch(`${hub.url}/api/models/onnx-community/whisper-tiny`)).status).to.be.below(500);
      expect(asked.length).to.equal(before);
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });

  it('a checksum mismatch: exit 1, a message naming the file, nothing in the model directory', async () => {
    const dataDir = mkdtempSync(join(root, 'data-'));
    hub.faults = { corrupt: new Set(['onnx/encoder_model.onnx']) };
    const result = await modelsCliWithEnv({ SVC_DATA_DIR: dataDir, HF_ENDPOINT: hub.url }, 'pull', 'whisper-tiny');
    expect(result.code).to.equal(1);
    expect(result.out).to.match(
      /not pulled: onnx\/encoder_model\.onnx: sha256 [0-9a-f]+ does not match the hub's [0-9a-f]+: refused and deleted/,
    );
    expect(readdirSync(join(dataDir, 'models')).filter((e) => e !== '.partial')).to.deep.equal([]);
    expect(readdirSync(join(dataDir, 'models', '.partial'))).to.deep.equal([]);
  });

  it('disk full before the download (a 16 KiB tmpfs): refused with the space needed and free, before any byte is fetched', async function () {
    hub.requests.length = 0;
    const result = await pullOnTinyDisk('16k', hub.url);
    if (!result) return this.skip(); // no user namespaces here: see the report
    expect(result.code, result.out).to.equal(1);
    expect(result.out).to.match(/not pulled: whisper-tiny needs [\d.]+ MB more and .* has [\d.]+ MB free: free space/);
    expect(
      hub.requests.filter((r) => r.url.startsWith('/cdn-lfs/') || (r.url.includes('/resolve/') && r.range !== 'bytes=0-0')),
    ).to.deep.equal([]);
  });

  it('disk full during the download (the tmpfs filled while a slow hub sends): a clear message, the part kept for a later resume, nothing installed', async function () {
    hub.faults = { bytesPerSecond: 8000 };
    // Once the download has started (the tokenizer's part exists), fill the disk.
    const fill =
      'for i in $(seq 1 1500); do [ -e $MNT/.partial/whisper-tiny/tokenizer.json ] && break; sleep 0.02; done; dd if=/dev/zero of=$MNT/filler bs=4k 2>/dev/null';
    const result = await pullOnTinyDisk('1m', hub.url, fill);
    if (!result) return this.skip();
    expect(result.code, result.out).to.equal(1);
    expect(result.out, result.out).to.match(
      /not pulled: .*the disk is full writing \S+ \(\d+ of \d+ bytes written, kept: free space, then run pull again to resume\)/,
    );
    expect(
      result.left
        .split('\n')
        .filter(Boolean)
        .every((f) => f.startsWith('.partial/whisper-tiny/')),
    ).to.equal(true);
  });
});
