import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { json, postJson } from '../helpers/http.js';
import { expectRestError } from './hardening-helpers.js';

/** Issue 7, point 3 and "nothing speakable": caller text never reaches a header, and silence is not a success. */
describe('hardening: speech input that used to be a 500 or an empty 200 (real server)', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => t?.close());
  const speech = async (body: object) =>
    json(await postJson(`${t.baseUrl}/v1/audio/speech`, { response_format: 'wav', ...body }, t.apiKey));

  for (const tag of ['日本', 'en\u0000', 'en\r\nX-Injected: 1', 'e', 'en-' + 'x'.repeat(40), 'en us', '', 'fr-CA-' + 'a1'.repeat(20)]) {
    it(`tn_language ${JSON.stringify(tag).slice(0, 30)} is a 400 invalid_language_tag`, async () => {
      const res = await speech({ input: 'Hello there.', tn_language: tag });
      expect(res.status).to.equal(400);
      expectRestError(res.body, 'invalid_language_tag');
      expect(res.body.error.param).to.equal('tn_language');
      expect(res.headers.get('x-injected')).to.equal(null);
    });
  }

  it('a well-formed tag still works and is echoed as X-Language', async () => {
    const res = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: 'Hello there.', tn_language: 'en-US', response_format: 'wav' },
      t.apiKey,
    );
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-language')).to.equal('en-us');
    expect((await res.arrayBuffer()).byteLength).to.be.greaterThan(1000);
  });

  for (const input of ['<|prosody:normal|>', '\u0000\u0000', '\u200b\u200b\u200b', '\ud800', '...!?', '<|emotion:happy|>']) {
    it(`input ${JSON.stringify(input)} (nothing speakable) is a 400 input_not_speakable, not 200 with no audio`, async () => {
      const res = await speech({ input });
      expect(res.status).to.equal(400);
      expectRestError(res.body, 'input_not_speakable');
    });
  }
});
