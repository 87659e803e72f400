import { expect } from 'chai';
import sharp from 'sharp';
import { getJson, json, postJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { wavFile } from '../helpers/wav.js';
import { dataUri, samplePhoto } from './video-helpers.js';

function tone(seconds: number, rate = 16000): Int16Array {
  const out = new Int16Array(Math.round(seconds * rate));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(6000 * Math.sin((2 * Math.PI * 180 * i) / rate));
  return out;
}

/** A 30000x30000 PNG header of a few bytes: must be refused from the header, never decoded. */
function pngBomb(): Buffer {
  const b = Buffer.alloc(64);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).copy(b);
  b.writeUInt32BE(30000, 16);
  b.writeUInt32BE(30000, 20);
  return b;
}

describe('/v1/videos refusals: each a 400 with its own identifier, before any job exists', function () {
  this.timeout(120_000);
  let server: TestServer;
  const photo = dataUri(samplePhoto(1), 'image/jpeg');
  const shortAudio = dataUri(wavFile(tone(1), 16000), 'audio/wav');

  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  async function refused(
    body: unknown,
    path = '/v1/videos',
  ): Promise<{ status: number; type: string; param: string | null; message: string }> {
    const res = await json(await postJson(`${server.baseUrl}${path}`, body, server.apiKey));
    expect(res.headers.get('content-type')).to.match(/application\/json/);
    return { status: res.status, type: res.body.error?.type, param: res.body.error?.param ?? null, message: res.body.error?.message };
  }

  const cases: Array<[string, () => Promise<unknown> | unknown, string]> = [
    ['both input and input_tts', () => ({ ref_image: photo, input: shortAudio, input_tts: { input: 'Hi' } }), 'video_input_conflict'],
    ['neither input nor input_tts', () => ({ ref_image: photo }), 'video_input_missing'],
    ['no ref_image', () => ({ input: shortAudio }), 'missing_required_parameter'],
    ['a wrong size', () => ({ ref_image: photo, input: shortAudio, size: '1280x720' }), 'invalid_video_size'],
    ['a wrong model', () => ({ ref_image: photo, input: shortAudio, model: 'sora-2' }), 'invalid_video_model'],
    [
      'an image that is not an image (a GIF named .png)',
      () => ({ ref_image: dataUri(Buffer.from('GIF89a\x01\x00\x01\x00'), 'image/png'), input: shortAudio }),
      'invalid_image',
    ],
    [
      'a decompression bomb (30000x30000 PNG of 64 bytes)',
      () => ({ ref_image: pngBomb().toString('base64'), input: shortAudio }),
      'image_dimensions_too_large',
    ],
    ['a truncated JPEG', () => ({ ref_image: samplePhoto(1).subarray(0, 2000).toString('base64'), input: shortAudio }), 'invalid_image'],
    [
      'a photo without a face',
      async () => ({
        ref_image: dataUri(
          await sharp({ create: { width: 400, height: 400, channels: 3, background: '#7a8a99' } })
            .png()
            .toBuffer(),
          'image/png',
        ),
        input: shortAudio,
      }),
      'no_face_detected',
    ],
    ['audio over 60 s', () => ({ ref_image: photo, input: dataUri(wavFile(tone(70), 16000), 'audio/wav') }), 'video_input_too_long'],
    [
      'input that is not audio',
      () => ({ ref_image: photo, input: Buffer.from('just some text, not audio').toString('base64') }),
      'invalid_audio',
    ],
    [
      'an input_tts that would last over 60 s',
      () => ({ ref_image: photo, input_tts: { input: 'The quick brown fox jumps over the lazy dog again and again. '.repeat(25) } }),
      'input_tts_too_long',
    ],
    [
      'a nested stream',
      () => ({ ref_image: photo, input_tts: { input: 'Hi', stream: true, response_format: 'pcm' } }),
      'input_tts_stream_unsupported',
    ],
    [
      'input_tts over 5000 characters (speech rule)',
      () => ({ ref_image: photo, input_tts: { input: 'a'.repeat(5001) } }),
      'input_too_long',
    ],
    [
      'input_tts with an unknown voice (speech rule)',
      () => ({ ref_image: photo, input_tts: { input: 'Hi', voice: 'nobody' } }),
      'voice_not_found',
    ],
    ['an unknown field', () => ({ ref_image: photo, input: shortAudio, seconds: '8' }), 'unknown_parameter'],
    ['a file: URL', () => ({ ref_image: 'file:///etc/passwd', input: shortAudio }), 'invalid_media_url'],
    ['a private-address URL', () => ({ ref_image: 'http://127.0.0.1:1/face.jpg', input: shortAudio }), 'media_url_not_allowed'],
  ];

  for (const [what, body, type] of cases) {
    it(`${what}: ${type}`, async () => {
      const before = (await getJson(`${server.baseUrl}/v1/videos?limit=100`, server.apiKey)).body.data.length;
      const payload = await body();
      const err = await refused(payload);
      expect(err.type).to.equal(type, err.message);
      expect(err.status).to.be.oneOf([400, 404]);
      if (type !== 'voice_not_found') expect(err.status).to.equal(400);
      expect(err.message)
        .to.be.a('string')
        .and.not.match(/\n\s+at /);
      // The stream endpoint refuses the same body the same way, as a REST error (no video bytes).
      const streamed = await refused(payload, '/v1/videos/stream');
      expect(streamed.type).to.equal(type);
      expect((await getJson(`${server.baseUrl}/v1/videos?limit=100`, server.apiKey)).body.data.length).to.equal(
        before,
        'no job was created',
      );
    });
  }

  it('an inline ref_image over 10 MB is 413 media_too_large', async () => {
    const err = await refused({ ref_image: 'A'.repeat(10 * 1024 * 1024 + 8), input: shortAudio });
    expect(err).to.include({ status: 413, type: 'media_too_large' });
  });

  it('content: another variant is a 400, an unknown id a 404, both in the REST error shape', async () => {
    const variant = await getJson(`${server.baseUrl}/v1/videos/video_x/content?variant=thumbnail`, server.apiKey);
    expect(variant.status).to.equal(400);
    expect(variant.body.error).to.include({ type: 'invalid_video_variant', param: 'variant' });
    const unknown = await getJson(`${server.baseUrl}/v1/videos/video_x/content`, server.apiKey);
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.type).to.equal('video_not_found');
  });
});
