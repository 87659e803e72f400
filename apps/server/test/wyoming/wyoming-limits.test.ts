// @test-tier light: waits on idle timeouts and real-time audio
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REALTIME_TOKENS } from '@svc/core';
import type { PocketsphinxSpeechRecognizer } from '@svc/adapters-speech-recognition';
import { loadConfig } from '../../src/config.js';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { postJson } from '../helpers/http.js';
import { sendRecording, WyomingClient } from '../helpers/wyoming-client.js';
import { waitUntil } from '../helpers/wait-until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ports this process listens on (net servers: the HTTP server, a Wyoming server). */
function listeningPorts(): number[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h): h is Server => h instanceof Server && h.listening).map((s) => (s.address() as { port: number }).port);
}

async function speak(port: number, text: string, voice?: string): Promise<WyomingClient> {
  const c = await WyomingClient.connect(port);
  c.send('synthesize', { text, ...(voice ? { voice: { name: voice } } : {}) });
  await Promise.race([c.until('audio-stop'), c.until('error')]).catch(() => undefined);
  await c.close();
  return c;
}

describe('Wyoming port: limits and caps (real server)', function () {
  this.timeout(180_000);
  let t: TestServer;
  let port: number;

  before(async () => {
    t = await startTestServer({
      env: {
        SVC_WYOMING_PORT: '0',
        SVC_WYOMING_MAX_CONNECTIONS: '3',
        SVC_WYOMING_MAX_AUDIO_SECONDS: '2',
        SVC_WYOMING_IDLE_TIMEOUT_MS: '1500',
      },
    });
    port = t.server.wyoming!.server.address.port;
  });
  after(async () => t?.close());

  it('binds to loopback by default', () => {
    expect(t.server.wyoming!.server.address.host).to.equal('127.0.0.1');
  });

  it('without SVC_WYOMING_API_KEY_ID: presets only, no registered voice is listed or reachable', async () => {
    const c = await WyomingClient.connect(port);
    c.send('describe');
    const voices = ((await c.until('info')).data.tts as any[])[0].voices as { name: string }[];
    await c.close();
    expect(voices.length).to.be.above(3);
    expect(voices.filter((v) => v.name.startsWith('voice_'))).to.deep.equal([]);
    const refused = await speak(port, 'Hello.', 'voice_0123456789abcdef0123456789abcdef');
    expect(refused.of('error')[0]!.data).to.include({ code: 'voice_not_found' });
  });

  it('one connection past SVC_WYOMING_MAX_CONNECTIONS is told so and closed; the others keep working', async () => {
    const open = await Promise.all([0, 1, 2].map(() => WyomingClient.connect(port)));
    await sleep(100);
    const extra = await WyomingClient.connect(port);
    const error = await extra.until('error', 5000);
    expect(error.data).to.include({ code: 'service_unavailable' });
    await extra.closed;
    open[0]!.send('ping');
    await open[0]!.until('pong');
    await Promise.all(open.map((c) => c.close()));
    await sleep(100);
    const again = await WyomingClient.connect(port);
    again.send('ping');
    await again.until('pong');
    await again.close();
  });

  it('audio past SVC_WYOMING_MAX_AUDIO_SECONDS is refused as it arrives (audio_too_long) and the decoder is freed', async () => {
    const speech = librivoxSentences()[0]!;
    expect(speech.seconds).to.be.above(3);
    const c = await WyomingClient.connect(port);
    c.send('transcribe');
    sendRecording(c, speech.wav.subarray(44), undefined, 1024, false);
    const error = await c.until('error', 10_000);
    expect(error.data).to.include({ code: 'audio_too_long' });
    await c.closed;
    expect(c.of('transcript')).to.deep.equal([]);
    const recognizer = t.server.services.get(REALTIME_TOKENS.SpeechRecognizer) as PocketsphinxSpeechRecognizer;
    await waitUntil(() => recognizer.load.busy === 0 && recognizer.load.waiting === 0, 'the decoder to be handed back');
  });

  it('a silent connection is closed after SVC_WYOMING_IDLE_TIMEOUT_MS', async () => {
    const c = await WyomingClient.connect(port);
    const started = performance.now();
    await c.closed;
    const waited = performance.now() - started;
    expect(waited).to.be.within(1200, 5000);
    expect(c.of('error')[0]?.data.text).to.match(/Nothing was sent or received/);
  });

  it('a client that stops reading what it asked for is cut off after the idle timeout, and its synthesis stops', async () => {
    const wyoming = t.server.wyoming!.server;
    const before = wyoming.activeConnections;
    const c = await WyomingClient.connect(port);
    // About 5 minutes of speech: far more than the socket buffers hold once the client stops reading.
    c.socket.pause();
    c.send('synthesize', { text: 'A sentence that goes on for quite a while. '.repeat(110) }, null, { dataBlock: true });
    await sleep(200);
    expect(wyoming.activeConnections).to.equal(before + 1);
    const deadline = performance.now() + 60_000;
    while (wyoming.activeConnections > before && performance.now() < deadline) await sleep(100);
    expect(wyoming.activeConnections).to.equal(before);
    c.destroy();
  });

  it('at shutdown idle connections close at once and a busy one finishes its request within the grace (last: it stops the server)', async () => {
    const idle = await WyomingClient.connect(port);
    const busy = await WyomingClient.connect(port);
    busy.send('synthesize', { text: 'A longer answer that takes a while. '.repeat(12) });
    await busy.until('audio-chunk', 20_000);
    const closing = t.close();
    await Promise.race([idle.closed, sleep(2000).then(() => Promise.reject(new Error('the idle connection stayed open')))]);
    expect(busy.isClosed).to.equal(false);
    await busy.until('audio-stop', 30_000);
    await closing;
    await busy.closed;
    expect(busy.of('error')).to.deep.equal([]);
  });
});

describe('Wyoming port: the key it acts as (SVC_WYOMING_API_KEY_ID) and no port without SVC_WYOMING_PORT', function () {
  this.timeout(180_000);
  let dataDir: string;
  let keyId: string;
  let secret: string;

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-wyoming-key-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('opens no port when SVC_WYOMING_PORT is unset', async () => {
    const before = listeningPorts();
    const t = await startTestServer({ dataDir });
    try {
      expect(t.server.wyoming).to.equal(null);
      const added = listeningPorts().filter((p) => !before.includes(p));
      expect(added).to.deep.equal([t.server.port]);
      // The key the next server's port will act as.
      secret = await t.createApiKey('home-assistant');
      keyId = (await t.server.services.get(SERVER_TOKENS.ManageApiKeys).list()).find((k) => k.name === 'home-assistant')!.id;
    } finally {
      await t.close();
    }
  });

  it('refuses a secret where the key id belongs, before starting anything', () => {
    expect(() => loadConfig({ SVC_WYOMING_PORT: '0', SVC_WYOMING_API_KEY_ID: 'svc-abcdef' })).to.throw(
      /SVC_WYOMING_API_KEY_ID: name the key by its id/,
    );
  });

  it("counts Wyoming requests in the key's rate-limit bucket with its REST requests, and stops at once when the key is revoked", async () => {
    const t = await startTestServer({
      dataDir,
      env: { SVC_WYOMING_PORT: '0', SVC_WYOMING_API_KEY_ID: keyId, SVC_RATE_LIMIT_BURST: '2', SVC_RATE_LIMIT_PER_MINUTE: '1' },
    });
    try {
      const port = t.server.wyoming!.server.address.port;
      const rest = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: 'Hi.', response_format: 'pcm' }, secret);
      expect(rest.status).to.equal(200);
      await rest.arrayBuffer();
      expect((await speak(port, 'Second request.')).of('audio-stop')).to.have.length(1);
      // The bucket of two is spent (one REST, one Wyoming request).
      const limited = await speak(port, 'Third request.');
      expect(limited.of('error')[0]!.data).to.include({ code: 'rate_limit_exceeded' });
      expect(limited.of('audio-chunk')).to.deep.equal([]);
      // Describe is not rate-limited (as GET /v1/audio/presets is not); then the key is revoked.
      await t.server.services.get(SERVER_TOKENS.ManageApiKeys).revoke(keyId);
      const c = await WyomingClient.connect(port);
      c.send('describe');
      const error = await c.until('error');
      expect(error.data).to.include({ code: 'invalid_api_key' });
      expect(error.data.text).to.contain(keyId);
      await c.closed;
    } finally {
      await t.close();
    }
  });

  it('does not start when SVC_WYOMING_API_KEY_ID names no active key', async () => {
    let error: unknown;
    await startTestServer({ dataDir, env: { SVC_WYOMING_PORT: '0', SVC_WYOMING_API_KEY_ID: keyId } }).then(
      (t) => t.close(),
      (err) => (error = err),
    );
    expect(String(error)).to.match(/SVC_WYOMING_API_KEY_ID: no active API key has the id/);
  });
});
