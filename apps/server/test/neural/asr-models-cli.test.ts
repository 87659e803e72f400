import { expect } from 'chai';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTestAsrFolder } from '@svc/adapters-testing';
import { modelsCli } from '../helpers/models-cli.js';

describe('models CLI with Whisper and Moonshine folders (kind asr)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let sources: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-asr-cli-'));
    sources = mkdtempSync(join(tmpdir(), 'svc-asr-src-'));
    await writeTestAsrFolder(join(sources, 'whisper-tiny-test'), { family: 'whisper' });
    await writeTestAsrFolder(join(sources, 'moonshine-tiny-test'), { family: 'moonshine', layout: 'split', variant: '_quantized' });
    await writeTestAsrFolder(join(sources, 'whisper-broken'), { family: 'whisper' });
    writeFileSync(join(sources, 'whisper-broken', 'onnx', 'decoder_model_merged.onnx'), 'garbage');
    await writeTestAsrFolder(join(sources, 'whisper-incomplete'), { family: 'whisper' });
    unlinkSync(join(sources, 'whisper-incomplete', 'onnx', 'encoder_model.onnx'));
  });
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(sources, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => modelsCli(dataDir, ...args);

  it('adds, lists (kind asr, engine, languages, 16 kHz, checksum, files), verifies and removes recognizers', async () => {
    expect((await cli('add', join(sources, 'whisper-tiny-test'))).code).to.equal(0);
    expect((await cli('add', join(sources, 'moonshine-tiny-test'))).code).to.equal(0);
    const parsed = JSON.parse((await cli('list', '--json')).out);
    expect(
      parsed.models.map((m: { name: string; kind: string; engine: string; languages: string[]; sampleRate: number }) => [
        m.name,
        m.kind,
        m.engine,
        m.languages.join(','),
        m.sampleRate,
      ]),
    ).to.deep.equal([
      ['moonshine-tiny-test', 'asr', 'moonshine', 'en', 16000],
      ['whisper-tiny-test', 'asr', 'whisper', 'en,de', 16000],
    ]);
    expect(parsed.models[0].files).to.deep.equal([
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'onnx/encoder_model_quantized.onnx',
      'onnx/decoder_model_quantized.onnx',
      'onnx/decoder_with_past_model_quantized.onnx',
    ]);
    expect(parsed.models[1].checksum).to.match(/^[0-9a-f]{64}$/);
    const text = await cli('list');
    expect(text.out).to.match(/whisper-tiny-test\tasr\twhisper\ten,de\t16000 Hz/);
    const verify = await cli('verify');
    expect(verify.code, verify.out).to.equal(0);
    expect(verify.out).to.match(/2 model\(s\) load, 0 problem/);
    expect((await cli('remove', 'moonshine-tiny-test')).code).to.equal(0);
    expect(JSON.parse((await cli('list', '--json')).out).models).to.have.length(1);
  });

  it('refuses a folder onnxruntime cannot load or one missing a file, naming the file, and keeps nothing', async () => {
    const broken = await cli('add', join(sources, 'whisper-broken'));
    expect(broken.code).to.equal(1);
    expect(broken.out)
      .to.match(/decoder_model_merged\.onnx: onnxruntime cannot load it/)
      .and.match(/not added: whisper-broken/);
    const incomplete = await cli('add', join(sources, 'whisper-incomplete'));
    expect(incomplete.code).to.equal(1);
    expect(incomplete.out).to.include(join(sources, 'whisper-incomplete', 'onnx', 'encoder_model.onnx'));
    expect(JSON.parse((await cli('list', '--json')).out).models.map((m: { name: string }) => m.name)).to.deep.equal(['whisper-tiny-test']);
  });
});
