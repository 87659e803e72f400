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
