import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runFfmpeg } from '@svc/adapters-media';

// The playground's modules compiled for the browser (packages/playground-web/dist/js), loaded in
// Node: the parts that do not touch the DOM. The page's globals they read (location,
// sessionStorage) are stand-ins set before the import.
type Wav = typeof import('@svc/playground-web/js/wav.js');
type Mp4 = typeof import('@svc/playground-web/js/mp4-codecs.js');
type Api = typeof import('@svc/playground-web/js/api.js');
type Samples = typeof import('@svc/playground-web/js/code-samples.js');

// Imported once the stand-ins are in place (a static import would read location at load time).
const load = <T>(name: string) => import(`@svc/playground-web/js/${name}`) as Promise<T>;

class MemoryStorage {
  private readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

async function bytesOf(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}

describe('playground modules in Node (the DOM parts apart)', function () {
  this.timeout(30_000);
  let wav: Wav;
  let mp4: Mp4;
  let api: Api;
  let samples: Samples;

  before(async () => {
    Object.assign(globalThis, { location: new URL('http://127.0.0.1:8080/playground'), sessionStorage: new MemoryStorage() });
    [wav, mp4, api, samples] = await Promise.all([
      load<Wav>('wav.js'),
      load<Mp4>('mp4-codecs.js'),
      load<Api>('api.js'),
      load<Samples>('code-samples.js'),
    ]);
  });
  after(() => {
    delete (globalThis as Record<string, unknown>).location;
    delete (globalThis as Record<string, unknown>).sessionStorage;
  });

  it('wavBlob: a RIFF/WAVE header ffmpeg reads as mono 16-bit at the rate given, then the samples', async () => {
    const samples16 = Int16Array.from({ length: 1600 }, (_, i) => Math.round(8000 * Math.sin(i / 5)));
    const blob = wav.wavBlob(samples16, 16000);
    expect(blob.type).to.equal('audio/wav');
    const bytes = new Uint8Array(await blob.arrayBuffer());
    expect(bytes.length).to.equal(44 + 3200);
    const view = new DataView(bytes.buffer);
    expect(Buffer.from(bytes.subarray(0, 4)).toString()).to.equal('RIFF');
    expect(view.getUint32(4, true)).to.equal(36 + 3200);
    expect([view.getUint16(22, true), view.getUint32(24, true), view.getUint16(34, true), view.getUint32(40, true)]).to.deep.equal([
      1, 16000, 16, 3200,
    ]);
    // a real decoder agrees: back to the same samples
    const decoded = await bytesOf(
      runFfmpeg({
        args: ['-i', 'pipe:0', '-f', 's16le', '-ac', '1', '-ar', '16000', 'pipe:1'],
        stdin: (async function* () {
          yield bytes;
        })(),
      }),
    );
    expect(Array.from(new Int16Array(decoded.buffer, decoded.byteOffset, decoded.length / 2))).to.deep.equal(Array.from(samples16));
  });

  it('joinPcm: samples from chunks split anywhere, even mid-sample; a trailing odd byte is dropped', () => {
    const samples16 = Int16Array.from([1, -2, 300, -32768, 32767]);
    const bytes = new Uint8Array(samples16.buffer);
    const chunks = [bytes.subarray(0, 3), bytes.subarray(3, 4), bytes.subarray(4, 9), Uint8Array.of(...bytes.subarray(9), 7)];
    expect(Array.from(wav.joinPcm(chunks))).to.deep.equal(Array.from(samples16));
    expect(wav.joinPcm([])).to.have.length(0);
  });

  it('mseTypeOf: the codec string from a real fragmented MP4 (H.264 baseline + AAC), null until the moov is whole', async () => {
    const movie = await bytesOf(
      runFfmpeg({
        args: [
          '-f',
          'lavfi',
          '-i',
          'testsrc=size=64x64:rate=10',
          '-f',
          'lavfi',
          '-i',
          'sine=frequency=440',
          '-t',
          '1',
          '-c:v',
          'libx264',
          '-profile:v',
          'baseline',
          '-level',
          '3.1',
          '-pix_fmt',
          'yuv420p',
          '-c:a',
          'aac',
          '-movflags',
          'frag_keyframe+empty_moov+default_base_moof',
          '-f',
          'mp4',
          'pipe:1',
        ],
      }),
    );
    expect(mp4.mseTypeOf(movie)).to.equal('video/mp4; codecs="avc1.42C01F, mp4a.40.2"');
    const moovAt = Buffer.from(movie).indexOf('moov') - 4;
    expect(mp4.mseTypeOf(movie.subarray(0, moovAt + 16)), 'moov cut short').to.equal(null);
    expect(mp4.mseTypeOf(new TextEncoder().encode('not a movie at all')), 'not an MP4').to.equal(null);
  });

  describe('api: the key only in the Authorization header, every non-2xx as an ApiError', () => {
    let server: Server;
    let base = '';
    const seen: IncomingHttpHeaders[] = [];
    before(async () => {
      server = createServer((req, res) => {
        seen.push(req.headers);
        if (req.url === '/fails')
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(
              JSON.stringify({ error: { message: 'No voice found.', type: 'voice_not_found', code: 'voice_not_found', param: 'voice' } }),
            );
        else if (req.url === '/broken') res.writeHead(502).end('<html>bad gateway</html>');
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));
    beforeEach(() => {
      seen.length = 0;
      api.apiKey.clear();
    });

    it('without a key: 401 invalid_api_key before any request is made', async () => {
      const err = await api.api(`${base}/ok`).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(api.ApiError);
      expect(err).to.include({ status: 401, type: 'invalid_api_key' });
      expect(seen).to.deep.equal([]);
    });

    it('with a key: sent as Bearer, JSON read; the REST error shape and a non-JSON body both become ApiErrors', async () => {
      api.apiKey.set('sk-play');
      expect(await api.apiJson(`${base}/ok`)).to.deep.equal({ ok: true });
      expect(seen[0]!.authorization).to.equal('Bearer sk-play');
      const failed = await api.api(`${base}/fails`).catch((e: unknown) => e);
      expect(failed).to.include({ status: 404, type: 'voice_not_found', param: 'voice', message: 'No voice found.' });
      expect(api.describeError(failed)).to.equal('404 voice_not_found: No voice found.');
      const broken = await api.api(`${base}/broken`).catch((e: unknown) => e);
      expect(broken).to.include({ status: 502, type: null, message: '<html>bad gateway</html>' });
      expect(api.describeError(new Error('plain'))).to.equal('plain');
    });

    it('the base URL code samples show is the page origin', () => {
      expect(api.BASE_URL).to.equal('http://127.0.0.1:8080');
      expect(api.WS_URL).to.equal('ws://127.0.0.1:8080');
      expect(api.jsonRequest('POST', { a: 1 })).to.deep.equal({
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"a":1}',
      });
    });
  });

  it('shellQuote: what bash reads back is the text itself, quotes, dollars and newlines included', () => {
    for (const text of ["it's", 'a "b" $HOME `id` \\n', "multi\nline '' end", '']) {
      const echoed = execFileSync('bash', ['-c', `printf %s ${samples.shellQuote(text)}`], { encoding: 'utf8' });
      expect(echoed, text).to.equal(text);
    }
  });
});
