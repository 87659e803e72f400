import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED_TOKENS, type Logger } from '@svc/core';
import { PIPER_TEST_MODEL, writeKokoroModel, writePiperVoice } from '@svc/adapters-testing';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { decodeWithFfmpeg, getJson, postJson } from '../helpers/http.js';

function warnings(into: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (_obj: unknown, msg?: string) => void into.push(String(msg)),
    error: () => undefined,
    child: () => logger,
  } as unknown as Logger;
  return logger;
}

describe('Piper and Kokoro voices in the real server (test-built model in SVC_MODELS_DIR)', function () {
  this.timeout(120_000);
  let t: TestServer;
  let modelsDir: string;
  const warned: string[] = [];

  before(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'svc-models-'));
    await writePiperVoice(modelsDir, 'en_US-test-medium', { sampleRate: 22050 });
    await writePiperVoice(modelsDir, 'corrupt');
    writeFileSync(join(modelsDir, 'corrupt.onnx'), 'not an onnx file');
    writeFileSync(join(modelsDir, 'half.onnx'), 'no config beside it');
    await writeKokoroModel(join(modelsDir, 'kokoro'), { af_test: () => 0.1 });
    t = await startTestServer({
      env: { SVC_MODELS_DIR: modelsDir },
      overrides: new Map<symbol, unknown>([[SHARED_TOKENS.Logger, warnings(warned)]]),
    });
  });
  after(async () => {
    await t?.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('starts despite broken models, with one warning per broken model', () => {
    const models = warned.filter((w) => w.startsWith('model '));
    expect(models).to.have.length(2);
    expect(models.join('\n'))
      .to.match(/model corrupt: skipped, onnxruntime cannot load it/)
      .and.match(/model half: skipped.*no half\.onnx\.json/);
  });

  it('lists the Piper voice in GET /v1/audio/presets with engine and language', async () => {
    const res = await getJson(`${t.baseUrl}/v1/audio/presets`, t.apiKey);
    expect(res.status).to.equal(200);
    // OpenAI's voice names are listed too, as aliases (alias_of) of the best installed voice: not the engine's own.
    const own = res.body.data.filter((v: { alias_of?: string }) => !v.alias_of);
    const piper = own.filter((v: { engine: string }) => v.engine === 'piper');
    expect(piper).to.have.length(1);
    expect(piper[0]).to.include({ voice: 'piper-en_us-test-medium', engine: 'piper', language: 'en-us' });
    const kokoro = own.filter((v: { engine: string }) => v.engine === 'kokoro');
    expect(kokoro.map((v: { voice: string; language: string }) => [v.voice, v.language])).to.deep.equal([['kokoro-af_test', 'en-us']]);
  });

  it('speaks a Kokoro voice through POST /v1/audio/speech', async () => {
    const res = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: 'Hello world.', voice: 'kokoro-af_test', response_format: 'wav' },
      t.apiKey,
    );
    expect(res.status).to.equal(200);
    const pcm = await decodeWithFfmpeg(Buffer.from(await res.arrayBuffer()), 24000);
    expect(pcm.length).to.be.greaterThan(1000);
  });

  it('speaks through POST /v1/audio/speech, whole and streamed, with the model output', async () => {
    const whole = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: 'Hello world. Second sentence here.', voice: 'piper-en_us-test-medium', response_format: 'wav' },
      t.apiKey,
    );
    expect(whole.status).to.equal(200);
    const wav = Buffer.from(await whole.arrayBuffer());
    const pcm = await decodeWithFfmpeg(wav, 24000);
    // two sentences of tone (hop samples per phoneme id at 22.05 kHz) plus the pause between them
    expect(pcm.length / 24000).to.be.greaterThan((40 * PIPER_TEST_MODEL.hop) / 22050);

    const streamed = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: 'Hello world. Second sentence here.', voice: 'piper-en_us-test-medium', response_format: 'pcm', stream: true },
      t.apiKey,
    );
    expect(streamed.status).to.equal(200);
    // streamed: sent as it is produced (chunked, no length known up front)
    expect(streamed.headers.get('content-length')).to.equal(null);
    expect(streamed.headers.get('transfer-encoding')).to.equal('chunked');
    let bytes = 0;
    for await (const chunk of streamed.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    expect(bytes / 2).to.be.closeTo(pcm.length, 24000 * 0.05);
  });
});
