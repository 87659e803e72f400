import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKokoroModel, writePiperVoice } from '@svc/adapters-testing';
import { modelsCli } from '../helpers/models-cli.js';

describe('models CLI (npm run models)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let sources: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-models-cli-'));
    sources = mkdtempSync(join(tmpdir(), 'svc-models-src-'));
    await writePiperVoice(sources, 'en_US-cli-medium');
    await writeKokoroModel(join(sources, 'kokoro-v1'), { af_cli: () => 0.1 });
    await writePiperVoice(sources, 'broken');
    writeFileSync(join(sources, 'broken.onnx'), 'garbage');
    writeFileSync(join(sources, 'alone.onnx'), 'garbage');
  });
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(sources, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => modelsCli(dataDir, ...args);
  const modelsDir = () => join(dataDir, 'models');

  it('adds a Piper voice and a Kokoro directory, lists them with engine, language and checksum, verifies, removes', async () => {
    expect((await cli('add', join(sources, 'en_US-cli-medium.onnx'))).code).to.equal(0);
    expect((await cli('add', join(sources, 'kokoro-v1'))).code).to.equal(0);
    const list = await cli('list', '--json');
    expect(list.code).to.equal(0);
    const parsed = JSON.parse(list.out);
    expect(
      parsed.models.map((m: { name: string; engine: string; languages: string[] }) => [m.name, m.engine, m.languages[0]]),
    ).to.deep.equal([
      ['en_US-cli-medium', 'piper', 'en-us'],
      ['kokoro-v1', 'kokoro', 'en-us'],
    ]);
    expect(parsed.models[0].checksum).to.match(/^[0-9a-f]{64}$/);
    const verify = await cli('verify');
    expect(verify.code, verify.out).to.equal(0);
    expect(verify.out).to.match(/2 model\(s\) load, 0 problem/);
    expect((await cli('remove', 'kokoro-v1')).code).to.equal(0);
    expect((await cli('remove', 'kokoro-v1')).code).to.equal(1);
    expect(readdirSync(modelsDir()).sort()).to.deep.equal(['en_US-cli-medium.onnx', 'en_US-cli-medium.onnx.json']);
  });

  it('refuses a model onnxruntime cannot load, a .onnx without its .json, and leaves nothing behind', async () => {
    const broken = await cli('add', join(sources, 'broken.onnx'));
    expect(broken.code).to.equal(1);
    expect(broken.out)
      .to.match(/model broken: skipped, onnxruntime cannot load it/)
      .and.match(/not added: broken/);
    const alone = await cli('add', join(sources, 'alone.onnx'));
    expect(alone.code).to.equal(1);
    expect(alone.out).to.match(/alone\.onnx\.json is missing/);
    expect(readdirSync(modelsDir()).filter((f) => f.startsWith('broken') || f.startsWith('alone'))).to.deep.equal([]);
  });

  it('a URL fails at once with a clear message (nothing is downloaded), bad commands print the usage', async () => {
    // "Nothing is downloaded" shown by a server that counts requests, not by a wall-clock bound.
    let requests = 0;
    const host = createServer((_req, res) => {
      requests++;
      res.end('model bytes');
    });
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    const local = await cli('add', `http://127.0.0.1:${(host.address() as AddressInfo).port}/voices/en_US-lessac-medium.onnx`);
    await new Promise<void>((r) => host.close(() => r()));
    expect(local.code).to.equal(2);
    expect(requests, 'requests the CLI made for a URL').to.equal(0);
    const url = await cli('add', 'https://example.com/voices/en_US-lessac-medium.onnx');
    expect(url.code).to.equal(2);
    expect(url.out)
      .to.match(/takes a local path/)
      .and.match(/models -- pull NAME/);
    expect((await cli('frobnicate')).out)
      .to.match(/^error: unknown command 'frobnicate'/)
      .and.match(/^Usage:/m);
    expect((await cli('add')).code).to.equal(2);
    expect((await cli('remove', '../etc')).code).to.equal(2);
  });

  it('verify reports a broken model in the directory and exits 1', async () => {
    writeFileSync(join(modelsDir(), 'bad.onnx'), 'x');
    writeFileSync(join(modelsDir(), 'bad.onnx.json'), '{}');
    const verify = await cli('verify');
    expect(verify.code).to.equal(1);
    expect(verify.out).to.match(/problem: model bad: skipped, bad\.onnx\.json: audio\.sample_rate/);
  });
});
