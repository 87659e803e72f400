import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** A TCP port on `host` that nothing listens on (bound once, then closed): connecting is refused. */
async function refusedPort(host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server on `host` that resets every connection (RST) once the request arrives. */
async function resettingServer(host: string): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', () => socket.resetAndDestroy());
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
  };
}

/**
 * Issue 33, defect 2: a media URL whose host refuses or resets the connection is the caller's
 * `400 media_fetch_failed` naming what happened, on every media field (voices and speech
 * `ref_audio`, video `ref_image` and `input`, the video stream), never `503 ... database` (the
 * fetch error's ECONNREFUSED once matched the storage adapter's "database is down" pattern).
 */
describe('hardening: a media host that refuses or resets the connection is 400 media_fetch_failed on every media field (real server)', function () {
  this.timeout(120_000);
  const HOST = '127.0.0.2';
  let t: TestServer;
  let reset: Awaited<ReturnType<typeof resettingServer>>;
  let refusedUrl: string;
  const photo = readFileSync(
    join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg'),
  ).toString('base64');

  before(async () => {
    t = await startTestServer({ env: { SVC_MEDIA_ALLOWED_HOSTS: HOST } });
    reset = await resettingServer(HOST);
    refusedUrl = `http://${HOST}:${await refusedPort(HOST)}/a.wav`;
  });
  after(async () => {
    await reset?.close();
    await t?.close();
  });

  const requests = (url: string): Array<[string, string, Record<string, unknown>, string]> => [
    ['voices ref_audio', '/v1/audio/voices', { ref_audio: url }, 'ref_audio'],
    ['speech ref_audio', '/v1/audio/speech', { input: 'Hello there.', ref_audio: url, response_format: 'wav' }, 'ref_audio'],
    ['video ref_image', '/v1/videos', { ref_image: url, input_tts: { input: 'Hi.' } }, 'ref_image'],
    ['video input', '/v1/videos', { ref_image: photo, input: url }, 'input'],
    ['video stream ref_image', '/v1/videos/stream', { ref_image: url, input_tts: { input: 'Hi.' } }, 'ref_image'],
  ];

  for (const [connection, urlOf, said] of [
    ['refused', () => refusedUrl, /refused the connection \(ECONNREFUSED\)/],
    ['reset', () => `http://${HOST}:${reset.port}/a.wav`, /reset the connection \(ECONNRESET\)/],
  ] as const) {
    it(`a ${connection} connection: 400 media_fetch_failed naming it, for every field`, async () => {
      for (const [what, path, body, param] of requests(urlOf())) {
        const res = await fetch(`${t.baseUrl}${path}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        expect(res.status, `${what}: ${text}`).to.equal(400);
        const { error } = JSON.parse(text) as { error: { type: string; message: string; param?: string } };
        expect(error.type, what).to.equal('media_fetch_failed');
        expect(error.message, what).to.match(said).and.to.contain(`'${param}'`);
      }
    });
  }
});
