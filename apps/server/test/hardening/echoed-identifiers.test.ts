import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * Issue 33, "also seen": an identifier from the URL is echoed in the 404's message as at most a
 * short prefix (a 5,000-character model id made a 5,161-byte answer).
 */
describe('hardening: 404 messages echo at most 64 characters of the identifier asked for (real server)', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => (t = await startTestServer()));
  after(async () => t?.close());

  const long = `m${'x'.repeat(4999)}`;
  for (const [what, method, path, type] of [
    ['a model', 'GET', `/v1/models/${long}`, 'model_not_found'],
    ['a video', 'GET', `/v1/videos/${long}`, 'video_not_found'],
    ['a voice', 'DELETE', `/v1/audio/voices/${long}`, 'voice_not_found'],
    ['a realtime call', 'POST', `/v1/realtime/calls/${long}/hangup`, 'call_not_found'],
  ] as const) {
    it(`${what}: 404 ${type}, the id cut to 64 characters and an ellipsis`, async () => {
      const res = await fetch(`${t.baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${t.apiKey}` } });
      const text = await res.text();
      expect(res.status, text.slice(0, 200)).to.equal(404);
      const { error } = JSON.parse(text) as { error: { type: string; message: string } };
      expect(error.type).to.equal(type);
      expect(error.message).to.contain(`'${long.slice(0, 64)}…'`);
      expect(Buffer.byteLength(text), 'the whole answer').to.be.below(400);
    });
  }
});
