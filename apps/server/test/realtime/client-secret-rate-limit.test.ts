import { expect } from 'chai';
import { postJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * POST /v1/realtime/client_secrets is rate-limited per key like the other endpoints that do work:
 * each secret is a stored row living up to 2 h, and unlimited, one key minted 150 a second.
 */
describe('client secrets: the per-key rate limit', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => (t = await startTestServer({ env: { SVC_RATE_LIMIT_PER_MINUTE: '1', SVC_RATE_LIMIT_BURST: '2' } })));
  after(async () => t?.close());

  it('past its bucket a key gets 429 rate_limit_exceeded with Retry-After, before the body is read; other keys and other endpoints go on', async () => {
    const mint = (key: string, body: unknown = {}) => postJson(`${t.baseUrl}/v1/realtime/client_secrets`, body, key);
    expect((await mint(t.apiKey)).status).to.equal(200);
    expect((await mint(t.apiKey)).status).to.equal(200);
    // Not JSON: read before the limit, this would be a 400 invalid_json.
    const refused = await mint(t.apiKey, '{not json');
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    expect(((await refused.json()) as { error: { type: string } }).error.type).to.equal('rate_limit_exceeded');
    expect((await mint(await t.createApiKey('other'))).status).to.equal(200);
    const speech = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: 'Hi.', response_format: 'pcm' }, t.apiKey);
    expect(speech.status, 'the speech bucket is its own').to.equal(200);
  });
});
