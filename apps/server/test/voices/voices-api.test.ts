import { expect } from 'chai';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FfmpegAudioCodec } from '@svc/adapters-media';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { b64, call, ISO_SECONDS, REFERENCE_TEXT, registerForm, registerJson, speechBytes, VOICE_ID, wavFile } from './voice-helpers.js';

/** Every file under a directory (the blob store), relative paths. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
}

describe('/v1/audio/voices (real server): the Voice state table and its errors', function () {
  this.timeout(120_000);
  let t: TestServer;
  let otherKey: string;
  let maleWav: Buffer;
  let femaleWav: Buffer;

  before(async () => {
    t = await startTestServer();
    otherKey = await t.createApiKey('second');
    maleWav = await speechBytes(t, t.apiKey, { input: REFERENCE_TEXT, voice: 'rms', response_format: 'wav' });
    femaleWav = await speechBytes(t, t.apiKey, { input: REFERENCE_TEXT, voice: 'slt', response_format: 'wav' });
  });
  after(async () => t?.close());

  describe('(none) -> registered: POST with new audio', () => {
    it('registers with an id derived from the audio and returns {voice, ref_text, description, created_at}', async () => {
      const res = await registerJson(t, t.apiKey, { ref_audio: b64(maleWav), ref_text: REFERENCE_TEXT, description: 'male reader' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-voice-created')).to.equal('true');
      expect(Object.keys(res.body).sort()).to.deep.equal(['created_at', 'description', 'ref_text', 'voice']);
      expect(res.body.voice).to.match(VOICE_ID);
      expect(res.body).to.include({ ref_text: REFERENCE_TEXT, description: 'male reader' });
      expect(res.body.created_at).to.match(ISO_SECONDS);
      expect(Math.abs(Date.parse(res.body.created_at) - Date.now())).to.be.lessThan(60_000);
      const got = await call(t, 'GET', `/v1/audio/voices/${res.body.voice}`, t.apiKey);
      expect(got.status).to.equal(200);
      expect(got.body).to.deep.equal(res.body);
      await call(t, 'DELETE', `/v1/audio/voices/${res.body.voice}`, t.apiKey);
    });

    it('the same audio in another container (WAV vs FLAC, lossless) gets the same id; different audio another id', async () => {
      const flac = await speechBytes(t, t.apiKey, { input: REFERENCE_TEXT, voice: 'rms', response_format: 'flac' });
      const a = await registerJson(t, t.apiKey, { ref_audio: b64(maleWav) });
      const b = await registerJson(t, t.apiKey, { ref_audio: `data:audio/flac;base64,${b64(flac)}` });
      const c = await registerJson(t, t.apiKey, { ref_audio: b64(femaleWav) });
      expect(b.body.voice).to.equal(a.body.voice);
      expect(c.body.voice).to.not.equal(a.body.voice);
      for (const id of [a.body.voice, c.body.voice]) await call(t, 'DELETE', `/v1/audio/voices/${id}`, t.apiKey);
    });

    it('accepts WAV, MP3, FLAC, OPUS and AAC, recognised from the content', async () => {
      for (const format of ['mp3', 'opus', 'aac', 'flac', 'wav']) {
        const audio = await speechBytes(t, t.apiKey, {
          input: `Testing the ${format} format. ${REFERENCE_TEXT}`,
          voice: 'awb',
          response_format: format,
        });
        const res = await registerJson(t, t.apiKey, { ref_audio: `data:application/octet-stream;base64,${b64(audio)}` });
        expect(res.status, `${format}: ${JSON.stringify(res.body)}`).to.equal(200);
        await call(t, 'DELETE', `/v1/audio/voices/${res.body.voice}`, t.apiKey);
      }
    });

    it('accepts multipart/form-data with ref_audio as a file part or as a text field', async () => {
      const form = new FormData();
      form.append('ref_audio', new Blob([maleWav]), 'reference.wav');
      form.append('ref_text', REFERENCE_TEXT);
      form.append('description', 'uploaded as a file');
      const file = await registerForm(t, t.apiKey, form);
      expect(file.status).to.equal(200);
      expect(file.body).to.include({ ref_text: REFERENCE_TEXT, description: 'uploaded as a file' });

      const text = new FormData();
      text.append('ref_audio', b64(maleWav));
      const field = await registerForm(t, t.apiKey, text);
      expect(field.status).to.equal(200);
      expect(field.body.voice).to.equal(file.body.voice);
      expect(field.headers.get('x-voice-created')).to.equal('false');
      await call(t, 'DELETE', `/v1/audio/voices/${file.body.voice}`, t.apiKey);
    });
  });

  describe('registered -> registered: POST with identical audio under the same key', () => {
    it('returns the existing voice (200, same id and created_at, no duplicate)', async () => {
      const first = await registerJson(t, t.apiKey, { ref_audio: b64(femaleWav), description: 'first' });
      await new Promise((r) => setTimeout(r, 1100));
      const again = await registerJson(t, t.apiKey, { ref_audio: b64(femaleWav), description: 'second' });
      expect(again.status).to.equal(200);
      expect(again.headers.get('x-voice-created')).to.equal('false');
      expect(again.body).to.deep.equal(first.body);
      const list = await call(t, 'GET', '/v1/audio/voices', t.apiKey);
      expect(list.body.data.filter((v: { voice: string }) => v.voice === first.body.voice)).to.have.length(1);
      await call(t, 'DELETE', `/v1/audio/voices/${first.body.voice}`, t.apiKey);
    });
  });

  describe('registered (own) -> deleted: DELETE', () => {
    it('answers {voice_id, object: voice, deleted: true}, removes the reference audio, leaves the list; re-creating gives the same id', async () => {
      const blobsDir = join(t.dataDir, 'blobs', 'voices');
      const before = filesUnder(blobsDir).length;
      const created = await registerJson(t, t.apiKey, { ref_audio: b64(maleWav) });
      const id = created.body.voice;
      expect(filesUnder(blobsDir).length).to.equal(before + 1);

      const del = await call(t, 'DELETE', `/v1/audio/voices/${id}`, t.apiKey);
      expect(del.status).to.equal(200);
      expect(del.body).to.deep.equal({ voice_id: id, object: 'voice', deleted: true });
      expect(filesUnder(blobsDir).length).to.equal(before);
      const list = await call(t, 'GET', '/v1/audio/voices', t.apiKey);
      expect(list.body.data.map((v: { voice: string }) => v.voice)).to.not.include(id);

      const again = await registerJson(t, t.apiKey, { ref_audio: b64(maleWav) });
      expect(again.body.voice).to.equal(id);
      expect(again.headers.get('x-voice-created')).to.equal('true');
      await call(t, 'DELETE', `/v1/audio/voices/${id}`, t.apiKey);
    });
  });

  describe('preset: DELETE always', () => {
    it('403 voice_not_deletable for default and for every kind of preset', async () => {
      for (const preset of ['default', 'slt', 'rms', 'espeak-fr']) {
        const res = await call(t, 'DELETE', `/v1/audio/voices/${preset}`, t.apiKey);
        expect(res.status, preset).to.equal(403);
        expect(res.body.error.type).to.equal('voice_not_deletable');
        expect(res.body.error.message).to.be.a('string');
      }
      // The preset still speaks.
      expect((await speechBytes(t, t.apiKey, { input: 'Still here.', voice: 'slt', response_format: 'wav' })).length).to.be.greaterThan(
        1000,
      );
    });
  });

  describe('deleted / unknown / foreign: DELETE or GET', () => {
    it('404 voice_not_found, indistinguishable in status, body and headers', async () => {
      const own = await registerJson(t, t.apiKey, { ref_audio: b64(femaleWav) });
      const foreign = await registerJson(t, otherKey, { ref_audio: b64(maleWav) });
      const deleted = await registerJson(t, t.apiKey, { ref_audio: b64(maleWav) });
      await call(t, 'DELETE', `/v1/audio/voices/${deleted.body.voice}`, t.apiKey);
      const unknown = 'voice_' + 'ab'.repeat(16);

      const shapes = new Set<string>();
      for (const id of [unknown, foreign.body.voice, deleted.body.voice, 'not-even-an-id']) {
        for (const method of ['GET', 'DELETE'] as const) {
          const res = await call(t, method, `/v1/audio/voices/${id}`, t.apiKey);
          expect(res.status, `${method} ${id}`).to.equal(404);
          expect(res.body.error.type).to.equal('voice_not_found');
          const headers = [...res.headers.keys()].filter((h) => !['date', 'x-request-id'].includes(h)).sort();
          const headerValues = headers.map((h) => (h === 'content-length' ? 'n' : `${h}=${res.headers.get(h)}`));
          shapes.add(JSON.stringify({ method, body: JSON.stringify(res.body).replaceAll(id, '<id>'), headerValues }));
        }
      }
      expect(shapes.size).to.equal(2); // one shape per method, whatever the reason
      // The foreign voice is untouched for its owner, the own voice for us.
      expect((await call(t, 'GET', `/v1/audio/voices/${foreign.body.voice}`, otherKey)).status).to.equal(200);
      expect((await call(t, 'GET', `/v1/audio/voices/${own.body.voice}`, t.apiKey)).status).to.equal(200);
      await call(t, 'DELETE', `/v1/audio/voices/${own.body.voice}`, t.apiKey);
      await call(t, 'DELETE', `/v1/audio/voices/${foreign.body.voice}`, otherKey);
    });
  });

  describe('authentication and scoping by key', () => {
    it('401 on every voices endpoint without a key or with a wrong key', async () => {
      for (const key of [null, 'svc-not-a-real-key']) {
        const responses = [
          await registerJson(t, key, { ref_audio: b64(maleWav) }),
          await call(t, 'GET', '/v1/audio/voices', key),
          await call(t, 'GET', `/v1/audio/voices/voice_${'0'.repeat(32)}`, key),
          await call(t, 'DELETE', `/v1/audio/voices/voice_${'0'.repeat(32)}`, key),
          await call(t, 'DELETE', '/v1/audio/voices/default', key),
        ];
        for (const res of responses) {
          expect(res.status).to.equal(401);
          expect(res.body.error.type).to.equal('invalid_api_key');
        }
      }
    });

    it("lists only the caller's voices; the same audio under another key is that key's own voice", async () => {
      const mine = await registerJson(t, t.apiKey, { ref_audio: b64(maleWav), description: 'mine' });
      expect((await call(t, 'GET', '/v1/audio/voices', otherKey)).body.data).to.deep.equal([]);
      expect((await call(t, 'GET', `/v1/audio/voices/${mine.body.voice}`, otherKey)).status).to.equal(404);
      expect((await call(t, 'DELETE', `/v1/audio/voices/${mine.body.voice}`, otherKey)).status).to.equal(404);

      const theirs = await registerJson(t, otherKey, { ref_audio: b64(maleWav), description: 'theirs' });
      expect(theirs.headers.get('x-voice-created')).to.equal('true');
      expect(theirs.body.voice).to.equal(mine.body.voice);
      expect(theirs.body.description).to.equal('theirs');
      expect((await call(t, 'DELETE', `/v1/audio/voices/${theirs.body.voice}`, otherKey)).status).to.equal(200);
      expect((await call(t, 'GET', `/v1/audio/voices/${mine.body.voice}`, t.apiKey)).body.description).to.equal('mine');
      await call(t, 'DELETE', `/v1/audio/voices/${mine.body.voice}`, t.apiKey);
    });
  });

  describe('listing', () => {
    it('newest first, without ref_text, in pages of `limit` continued with `after`', async () => {
      const key = await t.createApiKey('lister');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const audio = await speechBytes(t, t.apiKey, {
          input: `Voice number ${i}. ${REFERENCE_TEXT}`,
          voice: 'rms',
          response_format: 'wav',
        });
        ids.push((await registerJson(t, key, { ref_audio: b64(audio), description: `v${i}` })).body.voice);
        await new Promise((r) => setTimeout(r, 1050)); // distinct creation seconds
      }
      const first = await call(t, 'GET', '/v1/audio/voices?limit=2', key);
      expect(first.status).to.equal(200);
      expect(first.body.object).to.equal('list');
      expect(first.body.data.map((v: { voice: string }) => v.voice)).to.deep.equal([ids[4], ids[3]]);
      expect(Object.keys(first.body.data[0]).sort()).to.deep.equal(['created_at', 'description', 'voice']);
      expect(first.body).to.include({ has_more: true, first_id: ids[4], last_id: ids[3] });
      const second = await call(t, 'GET', `/v1/audio/voices?limit=2&after=${first.body.last_id}`, key);
      expect(second.body.data.map((v: { voice: string }) => v.voice)).to.deep.equal([ids[2], ids[1]]);
      const third = await call(t, 'GET', `/v1/audio/voices?limit=2&after=${second.body.last_id}`, key);
      expect(third.body.data.map((v: { voice: string }) => v.voice)).to.deep.equal([ids[0]]);
      expect(third.body.has_more).to.equal(false);
      const all = await call(t, 'GET', '/v1/audio/voices', key);
      expect(all.body.data).to.have.length(5);
    });

    it('400 for an invalid limit, an unknown cursor or an unknown query parameter', async () => {
      for (const query of ['limit=0', 'limit=101', 'limit=abc', `after=voice_${'0'.repeat(32)}`, 'order=asc']) {
        const res = await call(t, 'GET', `/v1/audio/voices?${query}`, t.apiKey);
        expect(res.status, query).to.equal(400);
      }
    });
  });

  describe('invalid reference audio: a clear 400 and nothing stored', () => {
    const cases: Array<[string, () => unknown, number, string]> = [
      [
        'text that is not audio',
        () => ({ ref_audio: b64(Buffer.from('Hello, I am definitely not an audio file. '.repeat(20))) }),
        400,
        'invalid_audio',
      ],
      [
        'an HTML page',
        () => ({ ref_audio: `data:audio/wav;base64,${b64(Buffer.from('<!doctype html><html><body>nope</body></html>'))}` }),
        400,
        'invalid_audio',
      ],
      ['an empty string', () => ({ ref_audio: '' }), 400, 'media_empty'],
      ['an empty data URI', () => ({ ref_audio: 'data:audio/wav;base64,' }), 400, 'media_empty'],
      ['silence', () => ({ ref_audio: b64(wavFile(new Int16Array(16000 * 3), 16000)) }), 400, 'audio_silent'],
      [
        'a clip too short to analyse',
        () => ({
          ref_audio: b64(
            wavFile(
              new Int16Array(8000).map((_, i) => 8000 * Math.sin(i / 5)),
              16000,
            ),
          ),
        }),
        400,
        'audio_too_short',
      ],
      ['invalid base64', () => ({ ref_audio: 'this is ### not base64' }), 400, 'invalid_base64'],
      ['a file: URL', () => ({ ref_audio: 'file:///etc/passwd' }), 400, 'invalid_media_url'],
      ['no ref_audio', () => ({ ref_text: 'hello' }), 400, 'missing_required_parameter'],
      ['an unknown field', () => ({ ref_audio: 'AAAA', voice: 'x' }), 400, 'unknown_parameter'],
      ['a description over 1000 characters', () => ({ ref_audio: 'AAAA', description: 'x'.repeat(1001) }), 400, 'invalid_parameter'],
      [
        'a NUL character in ref_text (Postgres cannot store it)',
        () => ({ ref_audio: 'AAAA', ref_text: 'a\u0000b' }),
        400,
        'invalid_parameter',
      ],
      ['an inline payload over 10 MB', () => ({ ref_audio: 'A'.repeat(10 * 1024 * 1024 + 4) }), 413, 'media_too_large'],
    ];
    for (const [name, body, status, type] of cases) {
      it(`${name}: ${status} ${type}`, async () => {
        const key = await t.createApiKey(`errors-${type}`);
        const res = await registerJson(t, key, body());
        expect(res.status, JSON.stringify(res.body)).to.equal(status);
        expect(res.body.error.type).to.equal(type);
        expect(res.body.error.message).to.be.a('string').and.not.empty;
        expect((await call(t, 'GET', '/v1/audio/voices', key)).body.data).to.deep.equal([]);
      });
    }

    it('a small file holding a very long recording is refused as too long without decoding all of it', async () => {
      // 20 minutes of digital silence compress to a few hundred KB of FLAC (the length is checked first).
      const minute = new Int16Array(16000 * 60);
      const flac = await collectBytes(
        new FfmpegAudioCodec().encode(
          'flac',
          16000,
          (async function* () {
            for (let i = 0; i < 20; i++) yield minute;
          })(),
        ),
      );
      expect(flac.length).to.be.lessThan(3_000_000);
      const res = await registerJson(t, t.apiKey, { ref_audio: b64(flac) });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.include({ type: 'audio_too_long', param: 'ref_audio' });
    });

    it('multipart: an oversize file part is 413 media_too_large, an unknown part 400', async () => {
      const big = new FormData();
      big.append('ref_audio', new Blob([new Uint8Array(10 * 1024 * 1024 + 1)]), 'big.wav');
      const tooBig = await registerForm(t, t.apiKey, big);
      expect(tooBig.status).to.equal(413);
      expect(tooBig.body.error.type).to.equal('media_too_large');
      const unknown = new FormData();
      unknown.append('ref_audio', new Blob([maleWav]), 'a.wav');
      unknown.append('speed', '2');
      const res = await registerForm(t, t.apiKey, unknown);
      expect(res.status).to.equal(400);
      expect(res.body.error.type).to.equal('unknown_parameter');
    });

    it('a content type that is neither JSON nor multipart is refused', async () => {
      const res = await fetch(`${t.baseUrl}/v1/audio/voices`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'audio/wav' },
        body: maleWav,
      });
      expect(res.status).to.equal(400);
    });
  });
});

async function collectBytes(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}
