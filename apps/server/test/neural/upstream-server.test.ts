import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { getJson, postJson } from '../helpers/http.js';

describe('upstream speech server voices in the real server (local fake OpenAI-compatible server)', function () {
  this.timeout(120_000);
  let t: TestServer;
  let upstream: Server;
  const bodies: any[] = [];
  const slow = { finished: false };

  before(async () => {
    upstream = createServer(async (req, res) => {
      let raw = '';
      for await (const c of req) raw += c;
      const body = JSON.parse(raw);
      bodies.push(body);
      res.writeHead(200, { 'Content-Type': 'audio/pcm' });
      if (body.voice === 'slowpoke') {
        // 1 s of tone sent as 10 pieces 150 ms apart: the whole answer takes 1.5 s
        slow.finished = false;
        for (let n = 0; n < 10; n++) {
          res.write(Buffer.alloc(4800, 1));
          await new Promise((r) => setTimeout(r, 150));
        }
        slow.finished = true;
        return void res.end();
      }
      // 0.5 s of a 250 Hz tone at 24 kHz per sentence, in 5 chunks
      for (let n = 0; n < 5; n++) {
        const chunk = Buffer.alloc(2400 * 2);
        for (let i = 0; i < 2400; i++) chunk.writeInt16LE(Math.round(9000 * Math.sin((2 * Math.PI * 250 * (n * 2400 + i)) / 24000)), i * 2);
        res.write(chunk);
      }
      res.end();
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
    t = await startTestServer({
      env: { SVC_UPSTREAM_TTS_URL: url, SVC_UPSTREAM_TTS_VOICES: 'af_heart:en-us,ff_siwis:fr,slowpoke', SVC_UPSTREAM_TTS_MODEL: 'kokoro' },
    });
  });
  after(async () => {
    await t?.close();
    upstream.closeAllConnections();
    upstream.close();
  });

  it('lists the upstream voices and speaks through them, sentence by sentence', async () => {
    const presets = await getJson(`${t.baseUrl}/v1/audio/presets`, t.apiKey);
    // OpenAI's names that alias these voices are listed too (with alias_of): the engine's own presets here.
    const mine = presets.body.data
      .filter((v: { engine: string; alias_of?: string }) => v.engine === 'upstream' && !v.alias_of)
      .map((v: { voice: string; language: string }) => [v.voice, v.language]);
    expect(mine).to.deep.equal([
      ['upstream-af_heart', 'en-us'],
      ['upstream-ff_siwis', 'fr'],
      ['upstream-slowpoke', 'en'],
    ]);
    const res = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: 'First sentence. Second one.', voice: 'upstream-af_heart', response_format: 'pcm', stream: true },
      t.apiKey,
    );
    expect(res.status, await res.clone().text()).to.equal(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
    expect(bodies.map((b) => [b.voice, b.model, b.response_format])).to.deep.equal([
      ['af_heart', 'kokoro', 'pcm'],
      ['af_heart', 'kokoro', 'pcm'],
    ]);
    expect(pcm.length / 24000).to.be.at.least(1); // two 0.5 s sentences (plus the pause between)
  });

  it('passes the upstream bytes on as they arrive: our client hears the sentence before the upstream has finished it', async () => {
    const started = performance.now();
    const res = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: 'One slow sentence.', voice: 'upstream-slowpoke', response_format: 'pcm', stream: true },
      t.apiKey,
    );
    expect(res.status).to.equal(200);
    let first: { ms: number; upstreamFinished: boolean } | null = null;
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      first ??= { ms: performance.now() - started, upstreamFinished: slow.finished };
      bytes += chunk.length;
    }
    // the event is the proof (first audio while the upstream still speaks); no wall-clock bound
    expect(first!.upstreamFinished, `first audio after ${first!.ms.toFixed(0)} ms`).to.equal(false);
    expect(slow.finished).to.equal(true);
    expect(bytes).to.be.closeTo(48000, 100); // 1 s at 24 kHz, 16-bit
  });
});
