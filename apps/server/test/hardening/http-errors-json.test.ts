import { connect } from 'node:net';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { expectRestError } from './hardening-helpers.js';

/** Sends raw bytes and returns the whole answer (the server closes the connection after an error). */
function rawRequest(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
    socket.write(request);
    setTimeout(() => socket.end(), 2000).unref();
  });
}

/** Issue 7, point 6: every HTTP error the service sends is JSON in the REST error shape. */
describe('hardening: errors answered before any route runs are JSON too (real server, raw sockets)', function () {
  this.timeout(30_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => t?.close());

  const upgrade = (headers: string) =>
    rawRequest(t.server.port, `GET /v1/realtime HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.apiKey}\r\n${headers}\r\n`);

  it('a WebSocket upgrade without Sec-WebSocket-Key: 400 application/json', async () => {
    const res = await upgrade('Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n');
    expect(res.status).to.equal(400);
    expect(res.headers).to.match(/content-type: application\/json/i);
    expectRestError(JSON.parse(res.body), 'invalid_request_error');
  });

  it('a WebSocket upgrade with an unsupported version: 426 with the versions, JSON', async () => {
    const res = await upgrade(
      'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 99\r\n',
    );
    expect(res.status).to.equal(426);
    expect(res.headers).to.match(/sec-websocket-version: 13, 8/i);
    expectRestError(JSON.parse(res.body));
  });

  it('a 70 KB header: 431 request_header_too_large with a JSON body', async () => {
    const res = await rawRequest(t.server.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`);
    expect(res.status).to.equal(431);
    expect(res.headers).to.match(/content-type: application\/json/i);
    expectRestError(JSON.parse(res.body), 'request_header_too_large');
  });

  it('a request line that is not HTTP: 400 JSON', async () => {
    const res = await rawRequest(t.server.port, 'HELLO THERE\r\n\r\n');
    expect(res.status).to.equal(400);
    expectRestError(JSON.parse(res.body), 'invalid_request_error');
  });

  it('the server keeps serving afterwards', async () => {
    expect((await fetch(`${t.baseUrl}/healthz`)).status).to.equal(200);
  });
});

describe('hardening: a request must arrive within SVC_REQUEST_TIMEOUT_MS; a long response is not cut (real server)', function () {
  this.timeout(60_000);
  const TIMEOUT_MS = 1_500;
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ env: { SVC_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
  });
  after(async () => t?.close());

  it('a body that stalls halfway: 408 request_timeout in JSON, within the timeout and a check', async () => {
    const started = performance.now();
    const res = await new Promise<{ status: number; headers: string; body: string }>((resolve, reject) => {
      const socket = connect(t.server.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (d) => chunks.push(d));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), headers: head, body });
      });
      const body = '{"input": "Hello there, this body never ends';
      socket.write(
        `POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.apiKey}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length + 100}\r\n\r\n${body}`,
      );
      setTimeout(() => socket.destroy(), 20_000).unref();
    });
    const elapsed = performance.now() - started;
    expect(res.status, res.headers).to.equal(408);
    expectRestError(JSON.parse(res.body), 'request_timeout');
    expect(elapsed)
      .to.be.at.least(TIMEOUT_MS - 50)
      .and.below(10_000);
  });

  it('a streamed response that lasts longer than the timeout arrives whole', async () => {
    const input = Array.from({ length: 60 }, (_, i) => `This is sentence number ${i + 1} of a long reply.`).join(' ');
    const started = performance.now();
    const res = await fetch(`${t.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ input, response_format: 'pcm', stream: true }),
    });
    expect(res.status).to.equal(200);
    const bytes = (await res.arrayBuffer()).byteLength;
    const elapsed = performance.now() - started;
    // Only a response that outlasts the timeout (and a check after it) tests anything.
    expect(elapsed, 'the response must outlast the timeout to test it').to.be.above(TIMEOUT_MS + TIMEOUT_MS / 4);
    // 60 sentences at 24 kHz s16: well over two minutes of speech, whole.
    expect(bytes / 48_000).to.be.above(120);
  });
});
