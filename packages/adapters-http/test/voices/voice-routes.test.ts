import { expect } from 'chai';
import {
  VoiceLimitError,
  VoiceNotFoundError,
  type DeleteVoice,
  type GetVoice,
  type ListVoices,
  type Principal,
  type RegisterVoice,
  type RegisterVoiceCommand,
} from '@svc/core';
import { voiceRoutes } from '../../src/voices/voice-routes.js';
import { TEST_KEY, TEST_PRINCIPAL, errorOf, startApp, type RunningApp } from '../support/http-app.js';

const AT = Date.UTC(2026, 10, 25, 8, 30, 15);
const record = (id: string) => ({ id, refText: 'hello there', description: 'mine', createdAt: AT });

/**
 * The voices routes in process: the real Koa app, router, body readers, validation and error
 * mapper, with in-memory use cases that record what reached them. What the HTTP layer must do on
 * its own: validate before any work, answer in the REST error shape, pass the caller's key through.
 */
describe('voice routes (in-process HTTP app, in-memory use cases)', () => {
  let app: RunningApp;
  const registered: Array<{ principal: Principal; command: RegisterVoiceCommand }> = [];
  const asked: Array<{ op: string; principal: Principal; arg: unknown }> = [];

  /** Set: the use case refuses the key at its cap of voices, before it reads the body. */
  let atCap = false;
  const register = {
    async execute(principal: Principal, read: RegisterVoiceCommand | (() => Promise<RegisterVoiceCommand>)) {
      if (atCap) throw new VoiceLimitError(2);
      const command = typeof read === 'function' ? await read() : read;
      registered.push({ principal, command });
      return { voice: record('voice_new'), created: registered.length === 1 };
    },
  } as unknown as RegisterVoice;
  const list = {
    async execute(principal: Principal, query: unknown) {
      asked.push({ op: 'list', principal, arg: query });
      return { voices: [record('voice_a')], hasMore: false };
    },
  } as unknown as ListVoices;
  const get = {
    async execute(principal: Principal, id: string) {
      asked.push({ op: 'get', principal, arg: id });
      if (id !== 'voice_a') throw new VoiceNotFoundError(id);
      return record(id);
    },
  } as unknown as GetVoice;
  const remove = {
    async execute(principal: Principal, id: string) {
      asked.push({ op: 'delete', principal, arg: id });
      if (id !== 'voice_a') throw new VoiceNotFoundError(id);
      return { voiceId: id };
    },
  } as unknown as DeleteVoice;

  before(async () => {
    app = await startApp({ api: [voiceRoutes({ register, list, get, remove, jsonBodyLimit: 64 * 1024 })] });
  });
  after(() => app.close());
  beforeEach(() => {
    registered.length = 0;
    asked.length = 0;
    atCap = false;
  });

  const postJson = (body: unknown, headers: Record<string, string> = {}) =>
    app.call('/v1/audio/voices', {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', ...headers },
    });

  it('every route refuses a missing or wrong key with 401 invalid_api_key, before any use case runs', async () => {
    for (const [method, path] of [
      ['POST', '/v1/audio/voices'],
      ['GET', '/v1/audio/voices'],
      ['GET', '/v1/audio/voices/voice_a'],
      ['DELETE', '/v1/audio/voices/voice_a'],
    ] as const) {
      for (const headers of [{}, { Authorization: 'Bearer sk-wrong' }, { Authorization: TEST_KEY }] as Array<Record<string, string>>) {
        const res = await fetch(`${app.url}${path}`, { method, headers });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).to.equal(401);
        expect((await errorOf(res)).type).to.equal('invalid_api_key');
      }
    }
    expect(registered).to.deep.equal([]);
    expect(asked).to.deep.equal([]);
  });

  it('registers from JSON: the command carries the fields, the caller is the key; X-Voice-Created tells new from existing', async () => {
    const first = await postJson({ ref_audio: 'data:audio/wav;base64,UklGRg==', ref_text: 'hello there', description: 'mine' });
    expect(first.status).to.equal(200);
    expect(first.headers.get('x-voice-created')).to.equal('true');
    expect(await first.json()).to.deep.equal({
      voice: 'voice_new',
      ref_text: 'hello there',
      description: 'mine',
      created_at: '2026-11-25T08:30:15Z',
    });
    const again = await postJson({ ref_audio: 'UklGRg==' });
    expect(again.headers.get('x-voice-created')).to.equal('false');
    expect(registered.map((r) => r.principal)).to.deep.equal([TEST_PRINCIPAL, TEST_PRINCIPAL]);
    expect(registered[0]!.command).to.deep.equal({
      refAudio: 'data:audio/wav;base64,UklGRg==',
      refText: 'hello there',
      description: 'mine',
    });
    expect(registered[1]!.command).to.deep.equal({ refAudio: 'UklGRg==', refText: null, description: null });
  });

  it('registers from multipart with a file part; a text field sent as a file is refused', async () => {
    const form = new FormData();
    form.set('ref_audio', new Blob([Uint8Array.of(1, 2, 3)]), 'clip.wav');
    form.set('ref_text', 'hello there');
    const res = await app.call('/v1/audio/voices', { method: 'POST', body: form });
    expect(res.status).to.equal(200);
    expect(Array.from(registered[0]!.command.refAudio as Uint8Array)).to.deep.equal([1, 2, 3]);
    const wrong = new FormData();
    wrong.set('ref_audio', 'UklGRg==');
    wrong.set('ref_text', new Blob(['hello']), 'text.txt');
    const refused = await app.call('/v1/audio/voices', { method: 'POST', body: wrong });
    expect(refused.status).to.equal(400);
    expect(await errorOf(refused)).to.include({ type: 'invalid_request_error', param: 'ref_text' });
    expect(registered).to.have.length(1);
  });

  it('bad bodies are 400s in the REST error shape, naming the field, and reach no use case', async () => {
    const cases: Array<[unknown, string, string | null]> = [
      ['{"ref_audio": ', 'invalid_json', null],
      [{}, 'missing_required_parameter', 'ref_audio'],
      [{ ref_audio: 42 }, 'invalid_parameter', 'ref_audio'],
      [{ ref_audio: 'UklGRg==', colour: 'blue' }, 'unknown_parameter', 'colour'],
    ];
    for (const [body, type, param] of cases) {
      const res = await postJson(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      const error = await errorOf(res);
      expect(error.type, JSON.stringify(body)).to.equal(type);
      if (param) expect(error.param, JSON.stringify(body)).to.equal(param);
      expect(error.message).to.be.a('string').and.not.equal('');
    }
    const form = new FormData();
    form.set('ref_text', 'no audio');
    const missing = await app.call('/v1/audio/voices', { method: 'POST', body: form });
    expect(missing.status).to.equal(400);
    expect(await errorOf(missing)).to.include({ type: 'missing_required_parameter', param: 'ref_audio' });
    // Another content type: the message names both that the route takes.
    const plain = await app.call('/v1/audio/voices', { method: 'POST', body: 'ref_audio=x', headers: { 'Content-Type': 'text/plain' } });
    expect(plain.status).to.equal(400);
    expect((await errorOf(plain)).message).to.equal("Expected Content-Type application/json or multipart/form-data, got 'text/plain'.");
    expect(registered).to.deep.equal([]);
  });

  it('a key at its cap of voices: 429 voice_limit_exceeded without Retry-After (time frees nothing), the body unread', async () => {
    atCap = true;
    const res = await postJson('{"ref_audio": not even JSON');
    expect(res.status).to.equal(429);
    expect(res.headers.get('retry-after')).to.equal(null);
    expect(await errorOf(res)).to.include({ type: 'voice_limit_exceeded', param: null });
  });

  it('a JSON body over the limit is refused with 413 before it is parsed', async () => {
    const res = await postJson({ ref_audio: 'A'.repeat(70 * 1024) });
    expect(res.status).to.equal(413);
    expect(registered).to.deep.equal([]);
  });

  it('lists with validated paging; a bad limit is a 400 that reaches no use case', async () => {
    const page = await app.call('/v1/audio/voices?limit=5&after=voice_z');
    expect(page.status).to.equal(200);
    expect(await page.json()).to.deep.include({ object: 'list', has_more: false, first_id: 'voice_a', last_id: 'voice_a' });
    expect(asked).to.deep.equal([{ op: 'list', principal: TEST_PRINCIPAL, arg: { limit: 5, after: 'voice_z' } }]);
    for (const [query, type] of [
      ['limit=0', 'invalid_parameter'],
      ['limit=abc', 'invalid_parameter'],
      ['limit=5&colour=blue', 'unknown_parameter'],
    ]) {
      const res = await app.call(`/v1/audio/voices?${query}`);
      expect(res.status, query).to.equal(400);
      expect((await errorOf(res)).type, query).to.equal(type);
    }
    expect(asked).to.have.length(1);
  });

  it("gets and deletes by id for the caller; an unknown (or another key's) voice is 404 voice_not_found", async () => {
    expect(await (await app.call('/v1/audio/voices/voice_a')).json()).to.deep.include({ voice: 'voice_a' });
    expect(await (await app.call('/v1/audio/voices/voice_a', { method: 'DELETE' })).json()).to.deep.equal({
      voice_id: 'voice_a',
      object: 'voice',
      deleted: true,
    });
    for (const method of ['GET', 'DELETE']) {
      const res = await app.call('/v1/audio/voices/voice_other', { method });
      expect(res.status, method).to.equal(404);
      expect(await errorOf(res), method).to.include({ type: 'voice_not_found', param: 'voice' });
    }
    expect(asked.every((a) => a.principal === TEST_PRINCIPAL)).to.equal(true);
  });

  it('a method the route does not have is 405, an unknown path 404, both in the REST error shape', async () => {
    const put = await app.call('/v1/audio/voices/voice_a', { method: 'PUT' });
    expect(put.status).to.equal(405);
    await errorOf(put);
    const unknown = await app.call('/v1/audio/voicez');
    expect(unknown.status).to.equal(404);
    await errorOf(unknown);
  });
});
