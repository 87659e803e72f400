import { expect } from 'chai';
import {
  InvalidMediaUrlError,
  MediaFetchFailedError,
  MediaFetchTimeoutError,
  MediaTooLargeError,
  MediaUrlNotAllowedError,
} from '@svc/core';
import { SafeHttpMediaFetcher, type SafeHttpMediaFetcherOptions } from '../../src/index.js';
import { SMALL_BODY, startMediaTestServer, type MediaTestServer } from './media-test-server.js';

async function failure(promise: Promise<unknown>): Promise<Error & { status?: number; identifier?: string; param?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the fetch to fail');
}

/** Test DNS: fixed answers, so no test depends on the machine's resolver. */
const dns = (answers: Record<string, string[]>) => async (host: string) => {
  const found = answers[host];
  if (!found) throw new Error(`ENOTFOUND ${host}`);
  return found;
};

describe('SafeHttpMediaFetcher (real HTTP against a local server)', function () {
  this.timeout(20_000);
  let server: MediaTestServer;
  let base: string;
  const opts = { param: 'ref_audio' };
  // The local server is on loopback, so the "internet" here is the allowlisted name media.test.
  const allowing = (extra: SafeHttpMediaFetcherOptions = {}) =>
    new SafeHttpMediaFetcher({
      allowedHosts: ['media.test'],
      resolve: dns({ 'media.test': ['127.0.0.1'], localhost: ['127.0.0.1'] }),
      ...extra,
    });

  before(async () => {
    server = await startMediaTestServer();
    base = `http://media.test:${server.port}`;
  });
  after(async () => server.close());

  it('downloads from an allowed host, following a relative redirect', async () => {
    expect(Buffer.from(await allowing().fetch(`${base}/audio.wav`, opts)).equals(SMALL_BODY)).to.equal(true);
    expect(Buffer.from(await allowing().fetch(`${base}/redirect-relative`, opts)).equals(SMALL_BODY)).to.equal(true);
  });

  it('connects to the address it checked (pinned), with the URL host name in the Host header', async () => {
    // media.test does not exist in real DNS: the only way to reach the server is the checked address.
    const body = await allowing().fetch(`${base}/host`, opts);
    expect(Buffer.from(body).toString()).to.equal(`media.test:${server.port}`);
  });

  it('refuses private and loopback addresses by default, before connecting', async () => {
    const fetcher = new SafeHttpMediaFetcher({ resolve: dns({ localhost: ['127.0.0.1'], 'intranet.test': ['10.0.0.7'] }) });
    for (const url of [
      `http://127.0.0.1:${server.port}/audio.wav`,
      `http://localhost:${server.port}/audio.wav`,
      `http://[::1]:${server.port}/audio.wav`,
      `http://[::ffff:127.0.0.1]:${server.port}/audio.wav`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://intranet.test/a.wav',
      'http://0.0.0.0/',
    ]) {
      const err = await failure(fetcher.fetch(url, opts));
      expect(err, url).to.be.instanceOf(MediaUrlNotAllowedError);
      expect(err.identifier).to.equal('media_url_not_allowed');
      expect(err.param).to.equal('ref_audio');
    }
    for (const url of ['http://0.0.0.0/', 'http://[::]/']) {
      const err = await failure(fetcher.fetch(url, opts));
      expect(err.message, url).to.contain('resolves to an unspecified address;');
    }
  });

  it('checkUrl applies the same rules without connecting: private and loopback refused, public and allowed hosts pass', async () => {
    const fetcher = new SafeHttpMediaFetcher({ resolve: dns({ 'intranet.test': ['10.0.0.7'], 'public.test': ['93.184.216.34'] }) });
    for (const url of ['http://10.0.0.5/face.jpg', 'http://intranet.test/face.jpg', `http://127.0.0.1:${server.port}/audio.wav`]) {
      const err = await failure(fetcher.checkUrl(url, opts));
      expect(err, url).to.be.instanceOf(MediaUrlNotAllowedError);
      expect(err.param).to.equal('ref_audio');
    }
    expect(await failure(fetcher.checkUrl('ftp://public.test/face.jpg', opts))).to.be.instanceOf(MediaUrlNotAllowedError);
    expect(await failure(fetcher.checkUrl('http://nowhere.test/face.jpg', opts))).to.be.instanceOf(MediaFetchFailedError);
    // a public address (unreachable from here: a connection attempt would fail) and an allowlisted host pass
    await fetcher.checkUrl('http://public.test/face.jpg', opts);
    await allowing().checkUrl(`${base}/audio.wav`, opts);
  });

  it('checks every resolved address: one private answer among public ones is refused', async () => {
    const fetcher = new SafeHttpMediaFetcher({ resolve: dns({ 'mixed.test': ['93.184.216.34', '10.0.0.5'] }) });
    expect(await failure(fetcher.fetch('http://mixed.test/a.wav', opts))).to.be.instanceOf(MediaUrlNotAllowedError);
  });

  it('refuses a redirect to a private address (every hop is checked)', async () => {
    const err = await failure(allowing().fetch(`${base}/redirect-private`, opts));
    expect(err).to.be.instanceOf(MediaUrlNotAllowedError);
    expect(err.message).to.match(/loopback/);
  });

  it('refuses a redirect to another scheme', async () => {
    const err = await failure(allowing().fetch(`${base}/redirect-to?target=${encodeURIComponent('file:///etc/passwd')}`, opts));
    expect(err).to.be.instanceOf(MediaUrlNotAllowedError);
  });

  it('follows at most 3 redirects', async () => {
    expect((await allowing().fetch(`${base}/redirect-chain?n=2`, opts)).length).to.equal(SMALL_BODY.length);
    expect(await failure(allowing().fetch(`${base}/redirect-chain?n=3`, opts))).to.be.instanceOf(MediaFetchFailedError);
  });

  it('refuses an oversize body while streaming, without downloading the rest', async () => {
    const cap = 256 * 1024;
    const err = await failure(allowing({ maxDownloadBytes: cap }).fetch(`${base}/endless`, opts));
    expect(err).to.be.instanceOf(MediaTooLargeError);
    expect(err.identifier).to.equal('media_too_large');
    await new Promise((r) => setTimeout(r, 200));
    // The server wrote at most what fits in socket buffers after the cap, nowhere near its 200 MB.
    expect(server.endlessBytesSent()).to.be.lessThan(16 * 1024 * 1024);
  });

  it('refuses a declared oversize body from its Content-Length', async () => {
    expect(await failure(allowing({ maxDownloadBytes: 1024 }).fetch(`${base}/declared-huge`, opts))).to.be.instanceOf(MediaTooLargeError);
  });

  it('times out a server that does not answer, and one that trickles its body', async () => {
    // No wall-clock bound: without the deadline /slow-headers answers (after 5 s) and /slow-body never
    // ends, so a timeout error is itself the proof that the deadline fired.
    for (const route of ['/slow-headers', '/slow-body']) {
      const err = await failure(allowing({ timeoutMs: 400 }).fetch(`${base}${route}`, opts));
      expect(err, route).to.be.instanceOf(MediaFetchTimeoutError);
      expect(err.identifier).to.equal('media_fetch_timeout');
    }
  });

  it('times out a body still arriving at the deadline even without Content-Length or chunking', async () => {
    // The body is delimited by the connection's close: cutting it at the deadline must not pass the
    // bytes received so far off as the whole media.
    const err = await failure(allowing({ timeoutMs: 400 }).fetch(`${base}/slow-body-close-delimited`, opts));
    expect(err).to.be.instanceOf(MediaFetchTimeoutError);
    expect(err.identifier).to.equal('media_fetch_timeout');
    expect(err.param).to.equal('ref_audio');
  });

  it('the deadline covers a slow name lookup', async () => {
    let answered = false;
    const slowDns = (host: string) =>
      new Promise<string[]>((resolve) =>
        setTimeout(() => {
          answered = true;
          resolve(host === 'media.test' ? ['127.0.0.1'] : []);
        }, 3000),
      );
    const err = await failure(allowing({ timeoutMs: 300, resolve: slowDns }).fetch(`${base}/audio.wav`, opts));
    expect(err.identifier).to.equal('media_fetch_timeout');
    expect(answered, 'the deadline fired while the name lookup was still pending').to.equal(false);
  });

  it('reports HTTP errors and unreachable hosts as media_fetch_failed', async () => {
    expect(await failure(allowing().fetch(`${base}/missing`, opts))).to.be.instanceOf(MediaFetchFailedError);
    expect(await failure(allowing().fetch('http://nowhere.test/a.wav', opts))).to.be.instanceOf(MediaFetchFailedError);
    const closedPort = new SafeHttpMediaFetcher({ allowedHosts: ['127.0.0.1'] });
    expect(await failure(closedPort.fetch('http://127.0.0.1:9/a.wav', opts))).to.be.instanceOf(MediaFetchFailedError);
  });

  it('an allowlisted address range lets an internal URL through', async () => {
    const fetcher = new SafeHttpMediaFetcher({ allowedHosts: ['127.0.0.0/8'] });
    expect((await fetcher.fetch(`http://127.0.0.1:${server.port}/audio.wav`, opts)).length).to.equal(SMALL_BODY.length);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('client went away')), 100);
    const err = await failure(allowing().fetch(`${base}/slow-headers`, { ...opts, signal: controller.signal }));
    expect(err.message).to.equal('client went away');
  });

  describe('inline media', () => {
    const fetcher = new SafeHttpMediaFetcher({ maxInlineBytes: 1000 });
    it('decodes data URIs and raw base64; passes uploaded bytes through', async () => {
      const bytes = Buffer.from('hello audio');
      expect(Buffer.from(await fetcher.fetch(`data:audio/wav;base64,${bytes.toString('base64')}`, opts)).equals(bytes)).to.equal(true);
      expect(Buffer.from(await fetcher.fetch(bytes.toString('base64'), opts)).equals(bytes)).to.equal(true);
      expect(await fetcher.fetch(new Uint8Array([1, 2, 3]), opts)).to.deep.equal(new Uint8Array([1, 2, 3]));
    });
    it('caps inline payloads and uploads (413 media_too_large)', async () => {
      expect(await failure(fetcher.fetch('A'.repeat(1004), opts))).to.be.instanceOf(MediaTooLargeError);
      expect(await failure(fetcher.fetch(new Uint8Array(1001), opts))).to.be.instanceOf(MediaTooLargeError);
    });
    it("the inline size error follows the caller's kind of media and upload advice", async () => {
      const image = await failure(fetcher.fetch('A'.repeat(1004), { param: 'ref_image', kind: 'image' }));
      expect(image.message).to.contain('about 750 bytes of image once decoded; send larger images by URL');
      const audio = await failure(fetcher.fetch('A'.repeat(1004), { param: 'input', kind: 'audio', uploadable: true }));
      expect(audio.message).to.contain('send larger audio files as multipart or by URL');
    });
    it('refuses unsupported schemes', async () => {
      expect(await failure(fetcher.fetch('ftp://example.com/a.wav', opts))).to.be.instanceOf(InvalidMediaUrlError);
    });
  });
});
