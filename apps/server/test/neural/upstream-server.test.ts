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

  before(async () => {
    upstream = createServer(async (req, res) => {
      let raw = '';
      for await (const c of req) raw += c;
      bodies.push(JSON.parse(raw));
      res.writeHead(200, { 'Content-Type': 'audio/pcm' });
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
    t = await startTestServer({ env: { SVC_UPSTREAM_TTS_URL: url, SVC_UPSTREAM_TTS_VOICES: 'af_heart:en-us,ff_siwis:fr', SVC_UPSTREAM_TTS_MODEL: 'kokoro' } });
  });
  after(async () => {
    await t?.close();
    upstream.closeAllConnections();
    upstream.close();
  });

  it('lists the upstream voices and speaks through them, sentence by sentence', async () => {
    const presets = await getJson(`${t.baseUrl}/v1/audio/presets`, t.apiKey);
    const mine = presets.body.data.filter((v: { engine: string }) => v.engine === 'upstream').map((v: { voice: string; language: string }) => [v.voice, v.language]);
    expect(mine).to.deep.equal([
      ['upstream-af_heart', 'en-us'],
      ['upstream-ff_siwis', 'fr'],
    ]);
    const res = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: 'First sentence. Second one.', voice: 'upstream-af_heart', response_format: 'pcm', stream: true }, t.apiKey);
    expect(res.status, await res.clone().text()).to.equal(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
    expect(bodies.map((b) => [b.voice, b.model, b.response_format])).to.deep.equal([
      ['af_heart', 'kokoro', 'pcm'],
      ['af_heart', 'kokoro', 'pcm'],
    ]);
    expect(pcm.length / 24000).to.be.at.least(1); // two 0.5 s sentences (plus the pause between)
  });
});
