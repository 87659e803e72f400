import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { json, postJson } from '../helpers/http.js';
import { MediaHost } from '../helpers/media-host.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { REFERENCE_TEXT, speechBytes } from '../voices/voice-helpers.js';

/**
 * A media URL the server downloads for a caller (up to 25 MB) counts in the caller's large transfers
 * in progress, the same cap as request bodies over 1 MiB (SVC_MAX_LARGE_BODIES_PER_KEY): over it, every
 * media field is refused with that cap's 429 before anything is downloaded, and the place comes back
 * when the download ends, fails or is given up.
 */
describe('hardening: media URL downloads count in the per-key cap of large bodies (real server, local media host)', function () {
  this.timeout(180_000);
  let t: TestServer;
  let other: string;
  const host = new MediaHost();
  let base: string;
  const photo = readFileSync(
    join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg'),
  ).toString('base64');

  before(async () => {
    t = await startTestServer({
      env: {
        SVC_MAX_LARGE_BODIES_PER_KEY: '1',
        SVC_MEDIA_ALLOWED_HOSTS: '127.0.0.1',
        // A held download must stay in progress for as long as the test holds it.
        SVC_MEDIA_FETCH_TIMEOUT_MS: '170000',
      },
    });
    other = await t.createApiKey('other');
    base = await host.start();
    const clip = await speechBytes(t, t.apiKey, { input: REFERENCE_TEXT, voice: 'rms', response_format: 'wav' });
    host.serve('/clip.wav', clip);
    host.serve('/held.wav', clip);
    host.hold('/held.wav');
  });
  after(async () => {
    await host.close();
    await t?.close();
  });

  const post = (path: string, body: unknown, key = t.apiKey) => postJson(`${t.baseUrl}${path}`, body, key);
  const register = (url: string, key = t.apiKey, init: RequestInit = {}) =>
    postJson(`${t.baseUrl}/v1/audio/voices`, { ref_audio: url }, key, init);

  /** Starts a registration whose download the host holds; resolves once the download is in progress. */
  async function heldRegistration(init: RequestInit = {}): Promise<{ response: Promise<Response> }> {
    const arrived = host.arrival('/held.wav');
    const response = register(`${base}/held.wav`, t.apiKey, init);
    await arrived;
    return { response };
  }

  async function expectOverTheCap(res: Response, what: string): Promise<void> {
    const text = await res.text();
    expect(res.status, `${what}: ${text}`).to.equal(429);
    expect(res.headers.get('retry-after'), what).to.equal('1');
    const { error } = JSON.parse(text) as { error: { type: string; code: string; message: string } };
    expect([error.type, error.code], what).to.deep.equal(['concurrency_limit_exceeded', 'concurrency_limit_exceeded']);
    expect(error.message, what).to.contain('media URLs the server is downloading');
  }

  it('while one download of a key is in progress, every media URL of that key is 429 before it is fetched; other keys go on; the end frees the place', async () => {
    const held = (await heldRegistration()).response;
    const url = `${base}/clip.wav`;
    const fields: Array<[string, string, Record<string, unknown>]> = [
      ['voices ref_audio', '/v1/audio/voices', { ref_audio: url }],
      ['speech ref_audio', '/v1/audio/speech', { input: 'Hello there.', ref_audio: url, response_format: 'wav' }],
      ['video ref_image', '/v1/videos', { ref_image: url, input_tts: { input: 'Hi.' } }],
      ['video input', '/v1/videos', { ref_image: photo, input: url }],
      ['video input_tts ref_audio', '/v1/videos', { ref_image: photo, input_tts: { input: 'Hi.', ref_audio: url } }],
      ['video stream ref_image', '/v1/videos/stream', { ref_image: url, input_tts: { input: 'Hi.' } }],
    ];
    for (const [what, path, body] of fields) await expectOverTheCap(await post(path, body), what);
    // A body over 1 MiB counts in the same cap: refused before it is read.
    await expectOverTheCap(await post('/v1/audio/voices', { ref_audio: 'A'.repeat(1024 * 1024 + 10) }), 'a large body');
    expect(host.requests, 'nothing was downloaded for the refused requests').to.deep.equal(['/held.wav']);

    const others = await post('/v1/audio/speech', { input: 'Hello there.', ref_audio: url, response_format: 'wav' }, other);
    expect(others.status, "another key's downloads are its own").to.equal(200);
    await others.arrayBuffer();

    host.release();
    expect((await held).status, 'the held download completed').to.equal(200);
    const after = await register(url);
    expect(after.status, 'its end freed the place').to.equal(200);
  });

  it('a download that fails or that the server gives up (the client left) gives its place back', async () => {
    expect((await json(await register(`${base}/missing.wav`))).body.error.type).to.equal('media_fetch_failed');
    const held = (await heldRegistration()).response;
    await expectOverTheCap(await register(`${base}/missing.wav`), 'while held');
    host.release();
    await (await held).arrayBuffer();
    expect((await register(`${base}/missing.wav`)).status, 'after a failed download').to.equal(400);

    const leaving = new AbortController();
    const gone = (await heldRegistration({ signal: leaving.signal })).response.catch(() => null);
    await expectOverTheCap(await register(`${base}/missing.wav`), 'while held again');
    leaving.abort();
    await gone;
    await waitUntil(() => host.abandoned === 1, 'the server to give the download up');
    // Given back as the download's fetch ends, just after its connection closes: asked until then.
    await waitUntil(async () => (await register(`${base}/missing.wav`)).status === 400, 'the place to be given back');
  });
});
