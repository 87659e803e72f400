import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { smartTurnTestModel, writePiperVoice } from '@svc/adapters-testing';
import { modelsCliWithEnv } from '../helpers/models-cli.js';

const SCRIPT = fileURLToPath(new URL('../../../../../scripts/local-hub.mjs', import.meta.url));

/** Starts `node scripts/local-hub.mjs DIR` and resolves with its printed URL. */
function startLocalHub(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SCRIPT, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /^(http:\/\/127\.0\.0\.1:\d+)\n/.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.once('exit', (code) => reject(new Error(`local-hub exited ${code}: ${err}`)));
  });
}

describe('scripts/local-hub.mjs: trying `models pull` against a local server (docs/neural-engines.md)', function () {
  this.timeout(60_000);
  let root: string;
  let hub: { url: string; child: ChildProcess } | null = null;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-local-hub-'));
    await writePiperVoice(join(root, 'mirror', 'local', 'en_US-test-medium'), 'en_US-test-medium');
    await writePiperVoice(join(root, 'mirror', 'local', 'broken-voice'), 'en_US-broken-medium');
    const onnx = join(root, 'mirror', 'local', 'broken-voice', 'en_US-broken-medium.onnx');
    const whole = readFileSync(onnx);
    writeFileSync(onnx, whole.subarray(0, whole.length >> 1)); // a truncated model: its checksum matches, it does not load
    // A catalog entry that follows `main` (not pinned), in a folder named as its repository.
    mkdirSync(join(root, 'mirror', 'pipecat-ai', 'smart-turn-v3'), { recursive: true });
    writeFileSync(join(root, 'mirror', 'pipecat-ai', 'smart-turn-v3', 'smart-turn-v3.2-cpu.onnx'), smartTurnTestModel());
    hub = await startLocalHub(join(root, 'mirror'));
  });
  after(() => {
    hub?.child.kill('SIGTERM');
    rmSync(root, { recursive: true, force: true });
  });

  it('serves DIR/OWNER/REPO folders: a pull with HF_ENDPOINT at it installs the voice, checksums verified', async () => {
    const dataDir = mkdtempSync(join(root, 'data-'));
    const pulled = await modelsCliWithEnv({ SVC_DATA_DIR: dataDir, HF_ENDPOINT: hub!.url }, 'pull', 'local/en_US-test-medium');
    expect(pulled.code, pulled.out).to.equal(0);
    expect(pulled.out).to.match(/checksums verified, loads/);
    expect(existsSync(join(dataDir, 'models', 'en_US-test-medium.onnx'))).to.equal(true);
    expect(existsSync(join(dataDir, 'models', 'en_US-test-medium.onnx.json'))).to.equal(true);
  });

  it('a catalog name that follows main pulls by its name from a folder named as its repository (smart-turn-v3.2)', async () => {
    const dataDir = mkdtempSync(join(root, 'data-'));
    const pulled = await modelsCliWithEnv({ SVC_DATA_DIR: dataDir, HF_ENDPOINT: hub!.url }, 'pull', 'smart-turn-v3.2');
    expect(pulled.code, pulled.out).to.equal(0);
    expect(pulled.out).to.match(/pulled smart-turn-v3\.2 .*checksums verified, loads/);
    expect(existsSync(join(dataDir, 'models', 'smart-turn-v3.2', 'smart-turn-v3.2-cpu.onnx'))).to.equal(true);
  });

  it('a truncated model is downloaded, refused because it does not load, and removed', async () => {
    const dataDir = mkdtempSync(join(root, 'data-'));
    const pulled = await modelsCliWithEnv({ SVC_DATA_DIR: dataDir, HF_ENDPOINT: hub!.url }, 'pull', 'local/broken-voice');
    expect(pulled.code, pulled.out).to.equal(1);
    expect(pulled.out).to.match(/does not load \(removed\)/);
    expect(existsSync(join(dataDir, 'models', 'en_US-broken-medium.onnx'))).to.equal(false);
  });
});
