import { expect } from 'chai';
import { measureSpeaker } from '@svc/adapters-voice-cloning';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { decodeWithFfmpeg, json, postJson } from '../helpers/http.js';
import { b64, call, REFERENCE_TEXT, registerJson, shiftSpeaker, speechBytes } from './voice-helpers.js';

const SPOKEN = 'There is, according to legend, a boiling pot of gold at one end. People look, but no one ever finds it.';

async function f0Of(bytes: Uint8Array): Promise<number> {
  const pcm = await decodeWithFfmpeg(bytes, 16000);
  return measureSpeaker(
    Float32Array.from(pcm, (s) => s / 32768),
    16000,
    null,
  ).f0MedianHz;
}

const semitones = (a: number, b: number) => Math.abs(12 * Math.log2(a / b));

describe('speech with cloned voices (real server, real engines, real conversion)', function () {
  this.timeout(120_000);
  let t: TestServer;
  let highWav: Buffer;
  let highF0: number;
  let sltF0: number;

  before(async () => {
    t = await startTestServer();
    // A high voice that is not any preset: slt raised by 40 % (pitch and vocal tract together).
    highWav = await shiftSpeaker(await speechBytes(t, t.apiKey, { input: REFERENCE_TEXT, voice: 'slt', response_format: 'wav' }), 1.4);
    highF0 = await f0Of(highWav);
    sltF0 = await f0Of(await speechBytes(t, t.apiKey, { input: SPOKEN, voice: 'slt', response_format: 'wav' }));
  });
  after(async () => t?.close());

  it('a registered voice speaks through its base preset, converted toward the reference pitch', async () => {
    const voice = (await registerJson(t, t.apiKey, { ref_audio: b64(highWav), ref_text: REFERENCE_TEXT })).body.voice;
    const res = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: SPOKEN, voice, response_format: 'wav' }, t.apiKey);
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-voice')).to.equal('slt');
    const f0 = await f0Of(new Uint8Array(await res.arrayBuffer()));
    expect(semitones(highF0, sltF0)).to.be.greaterThan(4);
    expect(semitones(f0, highF0), `cloned F0 ${f0} vs reference ${highF0}`).to.be.lessThan(1.5);
    await call(t, 'DELETE', `/v1/audio/voices/${voice}`, t.apiKey);
  });

  it('inline ref_audio (+ ref_text) clones for one request without registering anything', async () => {
    const res = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: SPOKEN, ref_audio: `data:audio/wav;base64,${b64(highWav)}`, ref_text: REFERENCE_TEXT, response_format: 'mp3' },
      t.apiKey,
    );
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('audio/mpeg');
    const f0 = await f0Of(new Uint8Array(await res.arrayBuffer()));
    expect(semitones(f0, highF0)).to.be.lessThan(1.5);
    expect((await call(t, 'GET', '/v1/audio/voices', t.apiKey)).body.data).to.deep.equal([]);
  });

  it('streamed speech with a cloned voice still streams: the first PCM arrives long before the end', async () => {
    const voice = (await registerJson(t, t.apiKey, { ref_audio: b64(highWav) })).body.voice;
    const long = `${SPOKEN} ${SPOKEN} ${REFERENCE_TEXT} ${SPOKEN}`;
    const started = performance.now();
    const res = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: long, voice, response_format: 'pcm', stream: true }, t.apiKey);
    expect(res.status).to.equal(200);
    const reader = res.body!.getReader();
    let first = 0;
    let bytes = 0;
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!first) first = performance.now() - started;
      bytes += value.byteLength;
      chunks++;
    }
    const total = performance.now() - started;
    const audioSeconds = bytes / 2 / 24000;
    expect(chunks).to.be.greaterThan(3);
    expect(audioSeconds).to.be.greaterThan(10);
    expect(first, `first byte after ${first.toFixed(0)} ms of ${total.toFixed(0)} ms`).to.be.lessThan(total / 3);
    await call(t, 'DELETE', `/v1/audio/voices/${voice}`, t.apiKey);
  });

  it('a deleted voice stops working for speech (404 voice_not_found), as does another key’s voice', async () => {
    const voice = (await registerJson(t, t.apiKey, { ref_audio: b64(highWav) })).body.voice;
    const other = await t.createApiKey('other');
    const foreign = await json(await postJson(`${t.baseUrl}/v1/audio/speech`, { input: SPOKEN, voice }, other));
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.type).to.equal('voice_not_found');
    expect((await call(t, 'DELETE', `/v1/audio/voices/${voice}`, t.apiKey)).status).to.equal(200);
    const gone = await json(await postJson(`${t.baseUrl}/v1/audio/speech`, { input: SPOKEN, voice }, t.apiKey));
    expect(gone.status).to.equal(404);
    expect(gone.body.error.type).to.equal('voice_not_found');
    const unknown = await json(
      await postJson(`${t.baseUrl}/v1/audio/speech`, { input: SPOKEN, voice: `voice_${'1'.repeat(32)}` }, t.apiKey),
    );
    expect(unknown.status).to.equal(404);
  });

  it('bad inline references fail before any audio is sent', async () => {
    const notAudio = await json(
      await postJson(`${t.baseUrl}/v1/audio/speech`, { input: SPOKEN, ref_audio: b64(Buffer.from('plain text, not audio')) }, t.apiKey),
    );
    expect(notAudio.status).to.equal(400);
    expect(notAudio.body.error.type).to.equal('invalid_audio');
    const both = await json(
      await postJson(`${t.baseUrl}/v1/audio/speech`, { input: SPOKEN, voice: 'slt', ref_audio: b64(highWav) }, t.apiKey),
    );
    expect(both.status).to.equal(400);
    const privateUrl = await json(
      await postJson(`${t.baseUrl}/v1/audio/speech`, { input: SPOKEN, ref_audio: 'http://127.0.0.1:1/a.wav' }, t.apiKey),
    );
    expect(privateUrl.status).to.equal(400);
    expect(privateUrl.body.error.type).to.equal('media_url_not_allowed');
  });
});
