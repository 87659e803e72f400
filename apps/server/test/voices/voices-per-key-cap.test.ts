import { expect } from 'chai';
import { MediaHost } from '../helpers/media-host.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { b64, call, REFERENCE_TEXT, registerJson, speechBytes } from './voice-helpers.js';

/**
 * SVC_VOICES_MAX_PER_KEY: the voices one key may store. One more registration is refused before its
 * body is read (the media host sees no download), another key is not affected, and deleting a voice
 * frees a place.
 */
describe('voices: the per-key cap of stored voices (real server, local media host)', function () {
  this.timeout(120_000);
  let t: TestServer;
  const host = new MediaHost();
  let hostUrl: string;
  let clips: Buffer[];

  before(async () => {
    t = await startTestServer({ env: { SVC_VOICES_MAX_PER_KEY: '2', SVC_MEDIA_ALLOWED_HOSTS: '127.0.0.1' } });
    hostUrl = await host.start();
    // Three different speakers: three different voices.
    clips = [];
    for (const voice of ['rms', 'slt', 'awb'])
      clips.push(await speechBytes(t, t.apiKey, { input: REFERENCE_TEXT, voice, response_format: 'wav' }));
    clips.forEach((clip, i) => host.serve(`/clip${i}.wav`, clip));
  });
  after(async () => {
    await host.close();
    await t?.close();
  });

  it('refuses the key past its cap with 429 voice_limit_exceeded before downloading anything; other keys go on; a delete frees a place', async () => {
    const other = await t.createApiKey('other');
    const byUrl = (key: string, i: number) => registerJson(t, key, { ref_audio: `${hostUrl}/clip${i}.wav`, ref_text: REFERENCE_TEXT });
    const first = await byUrl(t.apiKey, 0);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect((await byUrl(t.apiKey, 1)).status).to.equal(200);
    expect(host.requests).to.deep.equal(['/clip0.wav', '/clip1.wav']);

    const refused = await byUrl(t.apiKey, 2);
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after'), 'time alone frees nothing').to.equal(null);
    expect(refused.body.error).to.deep.include({ type: 'voice_limit_exceeded', code: 'voice_limit_exceeded', param: null });
    expect(refused.body.error.message).to.contain('already has 2 registered voices');
    expect(host.requests, 'the refused registration downloaded nothing').to.deep.equal(['/clip0.wav', '/clip1.wav']);
    const again = await registerJson(t, t.apiKey, { ref_audio: b64(clips[0]!) });
    expect([again.status, again.body.error?.type], 'at the cap, audio the key has is refused too').to.deep.equal([
      429,
      'voice_limit_exceeded',
    ]);

    const others = await byUrl(other, 2);
    expect(others.status, "another key's voices do not count").to.equal(200);
    expect((await call(t, 'GET', '/v1/audio/voices', t.apiKey)).body.data).to.have.length(2);

    expect((await call(t, 'DELETE', `/v1/audio/voices/${first.body.voice}`, t.apiKey)).status).to.equal(200);
    const freed = await byUrl(t.apiKey, 2);
    expect(freed.status, JSON.stringify(freed.body)).to.equal(200);
    expect(freed.headers.get('x-voice-created')).to.equal('true');
    expect((await call(t, 'GET', '/v1/audio/voices', t.apiKey)).body.data).to.have.length(2);
  });
});
