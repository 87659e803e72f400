import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { json } from '../helpers/http.js';
import { expectRestError, trapUncaught } from './hardening-helpers.js';

/** Issue 7, point 1: a multipart body that ends inside a file part, and the cap on the whole body. */
describe('hardening: multipart/form-data bodies (real server)', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => t?.close());

  const post = (body: Buffer | string, boundary = 'B') =>
    fetch(`${t.baseUrl}/v1/audio/voices`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body,
    });

  it('a file part that never reaches its closing boundary is a 400 in the error shape, and the process lives', async () => {
    const trap = trapUncaught();
    try {
      const body = '--B\r\nContent-Disposition: form-data; name="ref_audio"; filename="a.wav"\r\n\r\nRIFFxxxx';
      const res = await json(await post(body));
      expect(res.status).to.equal(400);
      expectRestError(res.body, 'invalid_request_error');
      // The server still answers afterwards.
      const again = await json(await post(body));
      expect(again.status).to.equal(400);
    } finally {
      await new Promise((r) => setTimeout(r, 100));
      trap.release();
    }
    expect(trap.errors.map(String)).to.deep.equal([]);
  });

  it('bytes before the first and after the last boundary count towards a cap on the whole body: 413', async () => {
    const filler = Buffer.alloc(12 * 1024 * 1024, 0x61);
    const part = Buffer.from('--B\r\nContent-Disposition: form-data; name="description"\r\n\r\nhi\r\n--B--\r\n');
    for (const body of [Buffer.concat([filler, Buffer.from('\r\n'), part]), Buffer.concat([part, filler])]) {
      const res = await json(await post(body));
      expect(res.status).to.equal(413);
      expectRestError(res.body, 'payload_too_large');
    }
  });

  it('the cap holds for a chunked body with no Content-Length too', async () => {
    const filler = Buffer.alloc(1024 * 1024, 0x61);
    const part = Buffer.from('--B\r\nContent-Disposition: form-data; name="description"\r\n\r\nhi\r\n--B--\r\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(part);
        for (let i = 0; i < 12; i++) controller.enqueue(filler);
        controller.close();
      },
    });
    const res = await json(
      await fetch(`${t.baseUrl}/v1/audio/voices`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'multipart/form-data; boundary=B' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).to.equal(413);
    expectRestError(res.body, 'payload_too_large');
  });
});
